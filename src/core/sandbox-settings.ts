/**
 * `--sandbox`: the settings of a one-off local service started for this command, in place of the configured base URL
 * and key (the other settings stay). The caller closes the sandbox when the command ends and redacts its key.
 */
import type { Clock } from '../lib/time.js';
import { launchSandbox } from '../sandbox/launch.js';
import type { RunningSandbox } from '../sandbox/types.js';
import type { Settings } from './settings.js';

export async function startSandboxSettings(
  settings: Settings,
  clock: Clock,
): Promise<{ settings: Settings; sandbox: RunningSandbox }> {
  // The command's own clock: its tasks move on as the command's waits pass (a test's fake clock included).
  const sandbox = await launchSandbox({ port: 0, host: '127.0.0.1', clock });
  const origin = { source: 'sandbox', origin: '--sandbox' } as const;
  return {
    sandbox,
    settings: {
      ...settings,
      baseUrl: { value: sandbox.url, ...origin },
      apiKey: { value: sandbox.apiKey, ...origin },
    },
  };
}

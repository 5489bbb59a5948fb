/**
 * The CLI's way to start a sandbox. The sandbox is its own bundle (dist/sandbox.cjs) with its own copy of the error
 * classes; its errors still reach their exit code (a port in use is exit 2, not "a bug in taskctl") because `CliError`
 * recognises every bundle's errors by a shared brand (errors.ts). What hints say about a one-off `--sandbox` is
 * core/sandbox-hint.ts.
 */
import type { RunningSandbox, SandboxOptions } from './types.js';

export async function launchSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  // The path names ../sandbox/index.js so the build keeps it in dist/sandbox.cjs (scripts/bundling.ts, sandboxApart).
  const { startSandbox } = await import('../sandbox/index.js');
  return startSandbox(options);
}

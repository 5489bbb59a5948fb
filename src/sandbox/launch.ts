/**
 * The CLI's way to start a sandbox, and what its hints say about a one-off `--sandbox`. The sandbox is its own bundle
 * (dist/sandbox.cjs) with its own copy of the error classes; its errors still reach their exit code (a port in use is
 * exit 2, not "a bug in taskctl") because `CliError` recognises every bundle's errors by a shared brand (errors.ts).
 */
import type { RunningSandbox, SandboxOptions } from './types.js';

export async function launchSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  // The path names ../sandbox/index.js so the build keeps it in dist/sandbox.cjs (scripts/bundling.ts, sandboxApart).
  const { startSandbox } = await import('../sandbox/index.js');
  return startSandbox(options);
}

/** What a one-off `--sandbox` run says instead of a hint naming its tasks: they end with the command. */
export const EPHEMERAL_SANDBOX_NOTE =
  'this --sandbox service ends with this command; run `taskctl sandbox` in another terminal for one that lasts';

/**
 * On an ephemeral `--sandbox`, a hint sending the user to a later command on this service (`taskctl show 1`, `wait`,
 * `watch`, `list`) points at a sandbox that is gone, or at another server's task 1: it becomes the note.
 */
export function sandboxAwareHint(ephemeral: boolean, hint: string | undefined): string | undefined {
  if (!ephemeral || hint === undefined || !/\btaskctl (show|wait|watch|list)\b/.test(hint)) return hint;
  return `${EPHEMERAL_SANDBOX_NOTE.charAt(0).toUpperCase()}${EPHEMERAL_SANDBOX_NOTE.slice(1)}.`;
}

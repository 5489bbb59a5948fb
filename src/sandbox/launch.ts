/**
 * The CLI's way to start a sandbox. The sandbox is its own bundle (dist/sandbox.cjs) with its own copy of the error
 * classes, so its UsageError is not `instanceof` the CLI's: errors crossing that seam are adopted here, by their
 * `exitCode`, so that a port in use is exit 2 with its message, not "a bug in taskctl".
 */
import { CliError } from '../errors.js';
import type { RunningSandbox, SandboxOptions } from './index.js';

export async function launchSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  // The path names ../sandbox/index.js so the build keeps it in dist/sandbox.cjs (scripts/bundling.ts, sandboxApart).
  const { startSandbox } = await import('../sandbox/index.js');
  try {
    return await startSandbox(options);
  } catch (error) {
    throw adoptCliError(error);
  }
}

/** A CliError of another bundle (same shape: message, integer `exitCode`, optional `hint`) as this bundle's CliError. */
export function adoptCliError(error: unknown): unknown {
  if (error instanceof CliError || !(error instanceof Error)) return error;
  const { exitCode, hint } = error as Error & { exitCode?: unknown; hint?: unknown };
  if (typeof exitCode !== 'number' || !Number.isInteger(exitCode)) return error;
  const adopted = new CliError(error.message, exitCode, typeof hint === 'string' ? hint : undefined);
  if (error.stack !== undefined) adopted.stack = error.stack;
  return adopted;
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

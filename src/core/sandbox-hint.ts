/**
 * What the CLI's hints say on a one-off `--sandbox` (context.ts: `ctx.ephemeralSandbox`): a rule about our hints, not
 * about the sandbox service, so wait, watch and main share it without importing sandbox/.
 */

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

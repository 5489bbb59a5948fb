/**
 * Crash injection for the journal's crash campaign (test/campaign/journal.ts): with `TASKCTL_CRASH_AT=sent:7` the
 * process kills itself (SIGKILL, as `kill -9` or a power cut would) right after chunk 7's `send` record is on disk and
 * before its POST; with `answered:7`, right after the POST's answer and before the `created` record. These two
 * instants are too narrow for a kill from outside to hit on purpose. Unset (always, outside the campaign): nothing.
 */
export function crashPoint(
  env: Readonly<Record<string, string | undefined>>,
  point: 'sent' | 'answered',
  chunk: number,
): void {
  if (env.TASKCTL_CRASH_AT === `${point}:${chunk}`) process.kill(process.pid, 'SIGKILL');
}

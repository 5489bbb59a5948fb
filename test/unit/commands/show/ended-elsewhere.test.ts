/**
 * The `--job` commands on a job that ended elsewhere (a copy of its state directory finished it and was pruned there,
 * so its resume here is refused, exit 2): `show --job` uses the tasks this journal has and says where the others are,
 * and `wait --job` (as `retry --job`) is refused as before for want of every task; neither names a resume, which would
 * be refused, only the read that lists the job's tasks (docs/behaviour.md#jobs).
 */
import { expect, it } from 'vitest';
import { jobEndedInPrunedCopy, worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-show-ended-elsewhere-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], env: Record<string, string> = {}) =>
  runTaskctl(argv, { env: { ...world.env, ...env }, clock: world.clock, home: dir });

it('show --job and wait --job say where the job ended and name the read that lists its tasks, never a resume', async () => {
  const { id, copyJournal } = await jobEndedInPrunedCopy(world, run, S, dir);
  const list = `taskctl list --service ${S} --since 2025-01-15T12:00:00Z --all`;
  const shown = await run(['show', '--job', id, '-o', 'ndjson']);
  expect(shown.code, shown.stderr).toBe(0);
  expect(shown.stdout.trim().split('\n')).toHaveLength(1);
  expect(shown.stderr).toContain(
    `using its 1 task (it was finished from ${copyJournal}, which was removed since as finished: its tasks are on the service; \`${list}\` lists those made since it started)`,
  );
  expect(shown.stderr).not.toContain('taskctl resume');
  const waited = await run(['wait', '--job', id]);
  expect(waited.code, waited.stderr).toBe(2);
  expect(waited.stderr).toContain(
    `; it was finished from ${copyJournal}, which was removed since as finished; wait --job needs every task`,
  );
  expect(waited.stderr).toContain(`Its tasks are on the service: \`${list}\` lists those made since it started`);
  expect(waited.stderr).not.toContain('taskctl resume');
  expect(await world.tasks()).toHaveLength(4);
});

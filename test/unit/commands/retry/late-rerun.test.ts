/**
 * A job stopped with its chunk in doubt after the service made its task (Ctrl-C while its lost POST was checked), then
 * the same command again once that request is past its landing bound, so the re-run waits for nothing: the stopped
 * run's task is taken whatever its status (it was paid for, and its run never said what it made): the re-run is that
 * job's work again and continues it, settling its chunk, and nothing is paid twice (core/submit/same-work.ts, settle.ts).
 */
import { expect, it } from 'vitest';
import type { RunOptions } from '../run-in-process.js';
import { stoppedByCtrlC, worldEachTest, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
const FAILED = ['fail-a.com', 'fail-b.com'];
/** Past the stopped request's landing bound (its send, the 60 s POST timeout and the margin), its entry still kept. */
const LATE_MS = 90_000;
let world: World;
let dir: string;
worldEachTest('taskctl-late-rerun-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], options: Omit<RunOptions, 'env' | 'clock'> = {}) =>
  world.run(argv, { home: dir, ...options });

it('`retry` again after the stopped retry’s request could land reuses its task, items failed again and all', async () => {
  const original = await run(['create', S, 'ok.com', ...FAILED, '--wait', '-q']);
  expect(original.code, original.stderr).toBe(11);
  const id = original.stdout.trim().split('\n')[0] ?? '';
  const stopped = await stoppedByCtrlC(world, ['retry', id, '-y', '-q'], dir, 'reset-after');
  // The stopped retry's request made its task, whose items failed again (the sandbox fails every `fail-` item).
  const made = (await world.tasks()).filter((task) => String(task.id) !== id);
  expect(made).toHaveLength(1);
  const task = made[0]?.id;
  world.clock.advance(LATE_MS);
  const posts = await world.posts();
  const again = await run(['retry', id, '-y', '-q']);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stdout.trim()).toBe(String(task));
  // The same items in the same chunks: the re-run continues the stopped job (core/submit/same-work.ts).
  expect(again.stderr).toContain(`continuing job ${stopped}, started `);
  expect(await world.posts()).toBe(posts);
  // The stopped job's own hint, run verbatim, sends nothing either.
  const resumed = await run(['resume', stopped, '-y', '-q']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(await world.posts()).toBe(posts);
  const counts = await world.itemCounts();
  for (const item of FAILED) expect(counts.get(item), item).toBe(2);
});

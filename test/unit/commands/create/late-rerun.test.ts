/**
 * A job stopped with its chunk in doubt after the service made its task (Ctrl-C while its lost POST was checked), then
 * `create --reuse-window` of the same items once that request is past its landing bound, so the re-run waits for
 * nothing: the stopped run's task is reused whatever its status, however short the window (core/submit/send.ts).
 */
import { expect, it } from 'vitest';
import type { RunOptions } from '../run-in-process.js';
import { stoppedByCtrlC, worldEachTest, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
const ITEMS = ['late-ok.com', 'fail-late.com'];
/** Past the stopped request's landing bound (its send, the 60 s POST timeout and the margin), its entry still kept. */
const LATE_MS = 90_000;
let world: World;
let dir: string;
worldEachTest('taskctl-late-create-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], options: Omit<RunOptions, 'env' | 'clock'> = {}) =>
  world.run(argv, { home: dir, ...options });

it('the stopped create’s task, completed with a failed item, is reused by the re-run: each item paid once', async () => {
  const stopped = await stoppedByCtrlC(world, ['create', S, ...ITEMS, '-y', '-q'], dir, 'reset-after');
  expect((await world.tasks()).map((task) => task.id)).toEqual([1]);
  world.clock.advance(LATE_MS);
  const again = await run(['create', S, ...ITEMS, '--reuse-window', '20s', '-y']);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toMatch(
    /reusing task 1: same service and items, completed, created \S+ \(found back to the send of a stopped run's request for the same items at \S+, --reuse-window 20s or before\)/,
  );
  expect(again.stderr).toContain(
    `job ${stopped} stopped with these items in doubt (its chunk 1); this run's task 1 covers them`,
  );
  expect(await world.posts()).toBe(1);
  const resumed = await run(['resume', stopped, '-y', '-q']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(await world.posts()).toBe(1);
});

/**
 * A copy of a stopped job's journal made before a re-run took the job over whole (the same items in the same chunks:
 * core/submit/hand-over.ts), then resumed by its path: the copy adopts what the state directory's journal of the job
 * knows (journaled-run.ts `adoptOther`), the takeover (`covered_by`) included, so it continues the re-run's job and
 * pays for none of the items the re-run bought.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runTaskctl } from '../run-in-process.js';
import { startedBefore, stoppedByCtrlC, worldEachTest, type World } from '../sandbox-world.js';

const ITEMS = ['copy-a.com', 'copy-b.com', 'copy-c.com', 'copy-d.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-copy-superseded-', (w, d) => ((world = w), (dir = d)));

it('a copy made before the takeover, resumed by its path, continues the job that took it over, paying nothing', async () => {
  const create = ['create', 'domain_check_availability', ...ITEMS, '--chunk-size', '2', '-y', '-q'];
  const stopped = await stoppedByCtrlC(world, create, dir, 'reset-before');
  startedBefore(dir, stopped, 2 * 3_600_000);
  const copy = join(dir, 'copy.jsonl');
  cpSync(join(dir, 'state', 'jobs', `${stopped}.jsonl`), copy);
  const again = await runTaskctl([...create, '--reuse-window', '1h'], {
    env: world.env,
    clock: world.clock,
    home: dir,
  });
  expect(again.code, again.stderr).toBe(0);
  const rerun = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(again.stderr)?.[1] ?? '';
  expect(again.stderr).toContain(`job ${stopped} stopped with these items in doubt (its chunk 1)`);
  const posts = await world.posts();

  const fromCopy = await world.run(['resume', copy, '-y'], { home: dir });
  expect(fromCopy.code, fromCopy.stderr).toBe(0);
  expect(fromCopy.stderr).toContain(`was taken over by job ${rerun} (the same items, the same chunks)`);
  expect(await world.posts()).toBe(posts);
  const counts = await world.itemCounts();
  for (const item of ITEMS) expect(counts.get(item), item).toBe(1);
});

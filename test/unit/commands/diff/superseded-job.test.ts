/**
 * `diff` with a side that is a job taken over whole by a re-run of the same items (`superseded`): exit 2 pointing to
 * that job, the same diff with it in its place, never half the job compared (its other items called removed).
 */
import { expect, it } from 'vitest';
import { supersededJob, worldEachTest, type World } from '../sandbox-world.js';

let world: World;
let dir: string;
worldEachTest('taskctl-diff-superseded-', (w, d) => ((world = w), (dir = d)));

it('points to the job that took it over, on either side, and the pointed diff compares the whole job', async () => {
  const { stopped, rerun } = await supersededJob(world, dir, ['sd-a.com', 'sd-b.com']);
  const first = await world.run(['diff', stopped, rerun], { home: dir });
  expect(first.code, first.stderr).toBe(2);
  expect(first.stdout).toBe('');
  expect(first.stderr).toContain(`it was taken over by job ${rerun} (the same items, the same chunks)`);
  expect(first.stderr).toContain(`Run it on that job: taskctl diff ${rerun} ${rerun}\n`);
  const second = await world.run(['diff', rerun, stopped], { home: dir });
  expect(second.code, second.stderr).toBe(2);
  expect(second.stderr).toContain(`Run it on that job: taskctl diff ${rerun} ${rerun}\n`);
  const pointed = await world.run(['diff', rerun, rerun], { home: dir });
  expect(pointed.code, pointed.stderr).toBe(0);
});

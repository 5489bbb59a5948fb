/**
 * `watch --job` of a job taken over whole by a re-run of the same items (`superseded`): exit 2 pointing to that job,
 * as `wait --job` does, never half the job watched with a note saying to resume it.
 */
import { expect, it } from 'vitest';
import { supersededJob, worldEachTest, type World } from '../sandbox-world.js';

let world: World;
let dir: string;
worldEachTest('taskctl-watch-superseded-', (w, d) => ((world = w), (dir = d)));

it('points to the job that took it over', async () => {
  const { stopped, rerun } = await supersededJob(world, dir, ['sw-a.com', 'sw-b.com']);
  const watched = await world.run(['watch', '--job', stopped, '--timeout', '3s'], { home: dir });
  expect(watched.code, watched.stderr).toBe(2);
  expect(watched.stdout).toBe('');
  expect(watched.stderr).toContain(`it was taken over by job ${rerun} (the same items, the same chunks)`);
  expect(watched.stderr).toContain(`Run it on that job: taskctl watch --job ${rerun}\n`);
  expect(watched.stderr).not.toContain('taskctl resume');
});

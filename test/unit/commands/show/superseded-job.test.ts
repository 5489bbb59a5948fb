/**
 * `show --job` of a job taken over whole by a re-run of the same items (`superseded`): the re-run has its items' tasks,
 * so the export is refused (exit 2, as `wait --job` and `retry --job`) pointing to that job, never half the job with
 * exit 0 and a note saying to resume it (docs/commands.md#jobs-show---job-wait---job-retry---job---error).
 */
import { expect, it } from 'vitest';
import { supersededJob, worldEachTest, type World } from '../sandbox-world.js';

let world: World;
let dir: string;
worldEachTest('taskctl-show-superseded-', (w, d) => ((world = w), (dir = d)));

it('points to the job that took it over, exports nothing, and the pointed command exports every item', async () => {
  const { stopped, rerun } = await supersededJob(world, dir, ['ss-a.com', 'ss-b.com']);
  const shown = await world.run(['show', '--job', stopped, '-o', 'ndjson'], { home: dir });
  expect(shown.code, shown.stderr).toBe(2);
  expect(shown.stdout).toBe('');
  expect(shown.stderr).toContain(`it was taken over by job ${rerun} (the same items, the same chunks)`);
  expect(shown.stderr).toContain(`Run it on that job: taskctl show --job ${rerun}\n`);
  expect(shown.stderr).not.toContain('taskctl resume');
  const pointed = await world.run(['show', '--job', rerun, '-q'], { home: dir });
  expect(pointed.code, pointed.stderr).toBe(0);
  expect(pointed.stdout.trim().split('\n').sort()).toEqual(['ss-a.com', 'ss-b.com']);
});

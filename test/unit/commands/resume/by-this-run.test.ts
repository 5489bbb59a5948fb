/**
 * A resume's summary counts the whole job, and says how much of it this run gave (docs/commands.md, resume, Progress):
 * a job named by its id (the state directory, the default) as one of `--journal FILE`, so the last line of a resume
 * that paid nothing never reads as the whole job bought again.
 */
import { expect, it } from 'vitest';
import { jobStoppedAtChunk4 } from '../journal-lines.js';
import { worldEachTest, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-resume-by-run-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[]) => world.run(argv, { home: dir });

it('a job named by its id: the summary says what this run gave, 0 included', async () => {
  const { job } = await jobStoppedAtChunk4(run, dir, S, ['a.com', 'b.com', 'c.com', 'd.com', 'e.com']);
  const posts = await world.posts();
  const resumed = await run(['resume', job, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  // Chunk 4 settled by the scan (its task was made), chunk 5 sent: 1 of the job's 5 tasks is by this run. One clause
  // says both: the task recovered (an id) and the count by this run.
  expect(resumed.stderr).toContain('✓ 5 tasks for 5 items, 5 coins (task 4 recovered; 1 by this run)\n');
  expect(await world.posts()).toBe(posts + 1);
  const again = await run(['resume', job, '-y']);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toContain('✓ 5 tasks for 5 items, 5 coins (task 4 recovered; 0 by this run)\n');
  expect(await world.posts()).toBe(posts + 1);
});

it('a create that makes the whole job says no part: every task is by this run', async () => {
  const created = await run(['create', S, 'a.com', 'b.com', '--chunk-size', '1', '-y']);
  expect(created.code, created.stderr).toBe(0);
  expect(created.stderr).toContain('✓ 2 tasks for 2 items, 2 coins\n');
});

it('a resume that sends names its job once: in its first line, or with -q in the line that gives only its id', async () => {
  const items = ['a.com', 'b.com', 'c.com', 'd.com', 'e.com'];
  const { job } = await jobStoppedAtChunk4(run, dir, S, items);
  const resumed = await run(['resume', job, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toMatch(new RegExp(`^job ${job}: 3 of 5 chunks done`));
  expect(resumed.stderr.split(`job ${job}`)).toHaveLength(2);
  const quiet = await jobStoppedAtChunk4(
    run,
    dir,
    S,
    items.map((item) => `q${item}`),
  );
  const resumedQuietly = await run(['resume', quiet.job, '-y', '-q']);
  expect(resumedQuietly.code, resumedQuietly.stderr).toBe(0);
  expect(resumedQuietly.stderr).toMatch(new RegExp(`^job ${quiet.job}: taskctl jobs$`, 'm'));
  expect(resumedQuietly.stderr.split(`job ${quiet.job}`)).toHaveLength(2);
});

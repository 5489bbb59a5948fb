/**
 * A job stopped with a chunk in doubt, and the service's ids started again from 1 before its resume (a sandbox
 * restarted without --state): the task the service makes for that chunk gets an id an earlier chunk of the same job
 * already names. That earlier chunk's claim is on the id; what its journal recorded of its task (when it was made, its
 * items) is not what the service shows under the id now, so it does not make the new task another chunk's. The resume
 * takes the task its create was answered with, and the hint it prints, followed again, never pays for a chunk twice.
 */
import { expect, it } from 'vitest';
import { jobStoppedAtChunk4, journalLines } from '../journal-lines.js';
import { restartWithoutState, worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-ids-restart-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });
const ITEMS = ['m1.com', 'm2.com', 'm3.com', 'm4.com', 'm5.com', 'm6.com'];

/**
 * Job of six one-item chunks; its journal kept as if it was killed while chunk 4's request was in flight (the
 * service's tasks 4–6 are then dropped with the restart all the same). Returns the job's id and its journal's path.
 */
function stoppedAtChunk4(): Promise<{ job: string; journal: string }> {
  return jobStoppedAtChunk4(run, dir, S, ITEMS);
}

/** The sandbox restarted an hour on without --state, on the same port: no task, ids from 1 again. */
async function restart(): Promise<void> {
  await restartWithoutState(world);
}

/** The command a hint says to run next, as argv. */
function hinted(stderr: string): string[] | undefined {
  const line = /taskctl (resume [^\n]*)$/m.exec(stderr)?.[1];
  return line?.trim().split(/\s+/);
}

it('ids started again: chunk 4 sent after the restart is answered with task 1 (chunk 1 names the old task 1): taken, and paid once', async () => {
  const { job, journal } = await stoppedAtChunk4();
  await restart();
  const first = await run(['resume', job, '--yes']);
  // The hint, followed verbatim as long as it names a resume: it never pays for a chunk twice.
  let last = first;
  for (let i = 0; i < 2 && last.code !== 0; i++) {
    const next = hinted(last.stderr);
    if (next?.includes('--yes') !== true) break;
    last = await run(next);
  }
  const counts = await world.itemCounts();
  for (const item of ['m4.com', 'm5.com', 'm6.com']) expect(counts.get(item) ?? 0, item).toBeLessThanOrEqual(1);
  expect(first.code, first.stderr).toBe(0);
  // Never a certainty it cannot have: a request held past the horizon may still land, and where to look for it.
  expect(first.stderr).toMatch(
    /chunk 4: no task of the interrupted request found by \S+Z, past its horizon; sending it \(a request the service held longer could still land, as a second task of these items: `taskctl list --service \S+ --since \S+Z` would show it\)/,
  );
  expect(first.stderr).not.toContain('not created by the interrupted request');
  expect(first.stderr).not.toContain('which another chunk of this job already has');
  expect(await world.posts()).toBe(3);
  const created = journalLines(journal).filter((record) => record.type === 'created');
  expect(created.map((record) => [record.chunk, record.task])).toEqual([
    [1, 1],
    [2, 2],
    [3, 3],
    [4, 1],
    [5, 2],
    [6, 3],
  ]);
});

it('ids started again, and chunk 4 lost its answer after the new task 1 was made: the resume finds task 1 for it, and sends nothing', async () => {
  const { job, journal } = await stoppedAtChunk4();
  await restart();
  // The request of chunk 4 reaches the new service (it makes task 1), and its answer is lost.
  await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-after' });
  const lost = await run(['resume', job, '--yes']);
  await world.clearFaults();
  if (lost.code !== 0) {
    const again = await run(hinted(lost.stderr) ?? ['resume', job, '--yes']);
    expect(again.code, again.stderr).toBe(0);
  }
  const counts = await world.itemCounts();
  for (const item of ['m4.com', 'm5.com', 'm6.com']) expect(counts.get(item), item).toBe(1);
  const chunk4 = journalLines(journal).filter(
    (record) => record.chunk === 4 && (record.type === 'created' || record.type === 'reconciled'),
  );
  expect(chunk4.at(-1)).toEqual(expect.objectContaining({ task: 1 }));
});

it('then two chunks name each of tasks 1–3: resume --wait ends in exit 11; show, wait and retry --job leave the chunks recorded lost out (exit 11), and send nothing', async () => {
  const { job } = await stoppedAtChunk4();
  await restart();
  // Its creates find chunks 1–3 lost (tasks 1–3 are chunks 4–6's now) and record them: its --wait waits for chunks
  // 4–6 only, and ends in exit 11 (the job's items are not all done), never reading a chunk recorded lost again.
  const resumed = await run(['resume', job, '--yes', '--wait']);
  expect(resumed.code, resumed.stderr).toBe(11);
  expect(resumed.stderr).toContain('the service no longer has the tasks of chunks 1, 2 and 3 of job');
  expect(resumed.stderr).not.toContain('does not match');
  for (const argv of [
    ['show', '--job', job],
    ['wait', '--job', job],
    ['retry', '--job', job, '-y'],
  ]) {
    const result = await run(argv);
    // Recorded lost already: read no more, never the exit 8 whose hint (record it) would lead back here.
    expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(11);
    expect(result.stderr).toContain(`job ${job}: chunks 1, 2 and 3 are recorded lost`);
    expect(result.stderr).not.toContain('does not match');
  }
  const jobs = await run(['jobs']);
  expect(jobs.code, jobs.stderr).toBe(0);
  const again = await run(['resume', job, '--yes']);
  expect(again.code, again.stderr).toBe(0);
  expect(await world.posts()).toBe(3);
});

it('without a restart, chunk 4 in doubt finds its own task 4: nothing sent again for it', async () => {
  const { job } = await stoppedAtChunk4();
  const resumed = await run(['resume', job, '--yes']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain('chunk 4: task 4 was created by the interrupted request');
  expect(await world.posts()).toBe(8); // six, then chunks 5 and 6
});

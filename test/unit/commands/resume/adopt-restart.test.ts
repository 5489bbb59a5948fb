/**
 * `resume --adopt CHUNK=N` and another job of this machine whose journal gives task N to one of its chunks: the claim
 * refuses the adoption only while what that journal recorded of its task (service, items, when it was made) is what
 * the service shows under N now. A service whose ids started again from 1 (a sandbox restarted without --state) hands
 * N out to another task: an old journal's claim on N then is not this task's, and the adoption goes on.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { journalLines, keepJournalLines } from '../journal-lines.js';
import { restartWithoutState, stoppedByCtrlC, worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-adopt-restart-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });

/** Job X creates task 1 for `y.com`; job Y, of the same item, stops with its request lost before it left (in doubt). */
async function twoJobs(): Promise<{ x: string; y: string }> {
  const created = await run(['create', S, 'y.com', '-y']);
  expect(created.code, created.stderr).toBe(0);
  const x = /job (j-[0-9a-z]+): taskctl jobs/.exec(created.stderr)?.[1] ?? '';
  const y = await stoppedByCtrlC(world, ['create', S, 'y.com', '-y', '-q'], dir, 'reset-before');
  return { x, y };
}

/** A task of `y.com` made by hand (no job names it): `taskctl api`, as the exit 9 of a lost request may lead to. */
async function byHand(): Promise<number> {
  const made = await run(['api', 'POST', '/tasks', '-f', `service=${S}`, '-f', 'items[]=y.com']);
  expect(made.code, made.stderr).toBe(0);
  return (JSON.parse(made.stdout) as { data: { id: number } }).data.id;
}

/** The sandbox restarted an hour on without --state, on the same port: no task, ids from 1 again. */
async function restart(): Promise<void> {
  await restartWithoutState(world);
}

it('the sandbox restarted without --state (ids from 1 again): an old journal naming task 1 does not block adopting the new task 1', async () => {
  const { x, y } = await twoJobs();
  await restart();
  expect(await byHand()).toBe(1);
  const adopted = await run(['resume', y, '--adopt', '1=1', '-y']);
  expect(adopted.code, adopted.stderr).toBe(0);
  expect(adopted.stderr).toContain('chunk 1: task 1 adopted');
  expect(adopted.stderr).not.toContain(`job ${x}`);
  expect(journalLines(join(dir, 'state', 'jobs', `${y}.jsonl`))).toContainEqual(
    expect.objectContaining({ type: 'reconciled', chunk: 1, task: 1, by: 'user' }),
  );
});

it('without a restart, task 1 is the one job X recorded: adopting it for job Y is still refused', async () => {
  const { x, y } = await twoJobs();
  await byHand(); // another task of the same item exists: X's is still task 1
  const refused = await run(['resume', y, '--adopt', '1=1', '-y']);
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr).toContain(`--adopt 1=1: task 1 is chunk 1 of job ${x}`);
  // The way on names the task, never a placeholder to fill in.
  expect(refused.stderr).toMatch(/^Look at it \(taskctl show 1\), and at the candidates /m);
});

it('a journal of an earlier version (no created_at kept) and the same item: nothing tells the two tasks apart, still refused', async () => {
  const { x, y } = await twoJobs();
  keepJournalLines(
    join(dir, 'state', 'jobs', `${x}.jsonl`),
    () => true,
    ({ created_at: _at, ...record }) => (record.type === 'job' ? { ...record, created_at: _at } : record),
  );
  await restart();
  expect(await byHand()).toBe(1);
  const refused = await run(['resume', y, '--adopt', '1=1', '-y']);
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr).toContain(`--adopt 1=1: task 1 is chunk 1 of job ${x}`);
});

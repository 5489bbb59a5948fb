/**
 * A stopped job A whose chunk in doubt a re-run B of other items took over, B itself stopped before it finished (a
 * chunk of its own in doubt, or never sent) and perhaps never resumable (its `-f` input changed). A's `resume` waits
 * only for what B could still create of A's chunks left (a chunk of B with no task holding the same items), and
 * `--ignore-job B` goes on without waiting for it, recorded in A's journal (core/submit/hand-over.ts `coveringTasks`,
 * journaled-run.ts `fromCoveringJobs`).
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { RunOptions } from '../run-in-process.js';
import { ctrlCAtFirstLongWait, stoppedByCtrlC, worldEachTest, type World } from '../sandbox-world.js';
import { journalLines, keepJournalLines, type JournalLine } from '../journal-lines.js';

const S = 'domain_check_availability';
/** A's items, two a chunk: chunk 1 (a1, a2) is the one in doubt B takes over, chunk 2 (u1, u2) was never sent. */
const A_ITEMS = ['a1.com', 'a2.com', 'u1.com', 'u2.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-unfinished-taker-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], options: Omit<RunOptions, 'env' | 'clock'> = {}) =>
  world.run(argv, { home: dir, ...options });
const journalOf = (id: string) => join(dir, 'state', 'jobs', `${id}.jsonl`);
const records = (id: string) => journalLines(journalOf(id));
const keep = (id: string, keepIt: (record: JournalLine) => boolean) => keepJournalLines(journalOf(id), keepIt);
const jobOf = (stderr: string) => /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(stderr)?.[1] ?? '';

/**
 * A stopped with its chunk 1 in doubt; B, a create of `itemsB` from a file, two a chunk, takes A's chunk 1 over and
 * creates every chunk; then B's journal loses what `lost` says of its chunk 2 (as if killed there) and its file
 * changes, so B cannot be resumed as it is.
 */
async function takerStopped(
  itemsB: readonly string[],
  lost: 'task' | 'send',
  itemsA: readonly string[] = A_ITEMS,
): Promise<{ a: string; b: string }> {
  const a = await stoppedByCtrlC(world, ['create', S, ...itemsA, '--chunk-size', '2', '-y', '-q'], dir, 'reset-before');
  const file = join(dir, 'items-b.txt');
  writeFileSync(file, itemsB.map((item) => `${item}\n`).join(''));
  const created = await run(['create', S, '-f', file, '--chunk-size', '2', '--reuse-window', '1h', '-y']);
  expect(created.code, created.stderr).toBe(0);
  expect(created.stderr).toContain(`job ${a} stopped with these items in doubt (its chunk 1)`);
  const b = jobOf(created.stderr);
  const gone = lost === 'task' ? ['created', 'done'] : ['send', 'created', 'done'];
  keep(b, (record) => !(gone.includes(String(record.type)) && (record.type === 'done' || record.chunk === 2)));
  appendFileSync(file, 'w1.com\n');
  return { a, b };
}

async function eachPaid(items: readonly string[], times: number): Promise<void> {
  const counts = await world.itemCounts();
  for (const item of items) expect(counts.get(item), item).toBe(times);
}

// One scenario for two tests' worth of assertions: the --ignore-job refusals need A finished, as this one leaves it.
it('B stopped in a chunk of other items, never resumable: A goes on, its chunk left sent once; then --ignore-job of a job that took nothing over, on A finished: exit 2 all the same', async () => {
  const { a, b } = await takerStopped(['a1.com', 'a2.com', 'v1.com', 'v2.com'], 'task');
  expect((await run(['resume', b, '-y'])).code).toBe(2); // its input changed: B is stuck for good
  const resumed = await run(['resume', a, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(`job ${a}: 1 of 2 chunks done, none in doubt; next: send 1 chunk at most (2 items)`);
  expect(resumed.stderr).not.toContain('ignore');
  await eachPaid(A_ITEMS, 1);
  for (const argv of [
    ['resume', a, '--ignore-job', 'j-zzzzzzzz', '-y'],
    ['resume', a, '--ignore-job', 'not-a-job', '-y'],
  ]) {
    const refused = await run(argv);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`that job took no chunk of job ${a} over`);
  }
});

it('B never sent a chunk of another size: it cannot hold A’s chunk left, and A goes on', async () => {
  const { a } = await takerStopped(['a1.com', 'a2.com', 'v1.com'], 'send');
  const resumed = await run(['resume', a, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  await eachPaid(A_ITEMS, 1);
});

it('B never sent a chunk of the same size (its items unknown): exit 9 naming both ways on, first line not printed', async () => {
  const { a, b } = await takerStopped(['a1.com', 'a2.com', 'v1.com', 'v2.com'], 'send');
  const posts = await world.posts();
  const refused = await run(['resume', a, '-y']);
  expect(refused.code, refused.stderr).toBe(9);
  expect(refused.stderr).not.toContain('next: send');
  expect(refused.stderr).toContain(
    `job ${b}, which took over items of this job, has not finished: its chunk 2, not created yet, may hold the items of this job's chunk 2; nothing was sent`,
  );
  expect(refused.stderr).toContain(`Settle that job first: taskctl resume ${b} --yes; then: taskctl resume ${a} --yes`);
  expect(refused.stderr).toContain(`taskctl resume ${a} --yes --ignore-job ${b}\n`);
  expect(await world.posts()).toBe(posts);
});

// One scenario for two tests' worth of assertions: the refused --ignore-job of another job changes nothing.
it('B holds A’s chunk left in doubt: exit 9, settle B first; `--ignore-job B` is not offered, and refused (it would pay twice); --ignore-job of a job that took nothing of A over: exit 2, nothing sent', async () => {
  const { a, b } = await takerStopped(['a1.com', 'a2.com', 'u1.com', 'u2.com', 'v1.com'], 'task');
  const posts = await world.posts();
  const journal = readFileSync(journalOf(a), 'utf8');
  const other = await run(['resume', a, '--ignore-job', 'j-zzzzzzzz', '-y']);
  expect(other.code, other.stderr).toBe(2);
  expect(other.stderr).toContain(`--ignore-job j-zzzzzzzz: that job took no chunk of job ${a} over`);
  expect(await world.posts()).toBe(posts);
  expect(readFileSync(journalOf(a), 'utf8')).toBe(journal);
  const refused = await run(['resume', a, '-y']);
  expect(refused.code, refused.stderr).toBe(9);
  expect(refused.stderr).toContain(
    `job ${b}, which took over items of this job, has not finished: its request for its chunk 2 may have created the items of this job's chunk 2; nothing was sent`,
  );
  expect(refused.stderr).toContain(
    `Settle that job first: taskctl resume ${b} --yes; then: taskctl resume ${a} --yes\n`,
  );
  expect(refused.stderr).not.toContain('--ignore-job');
  // B's request for u1, u2 did make a task (its record was lost): passed over, they would be bought again.
  const ignoring = await run(['resume', a, '-y', '--ignore-job', b]);
  expect(ignoring.code, ignoring.stderr).toBe(9);
  expect(ignoring.stderr).toContain(`its request for its chunk 2 may have created the items of this job's chunk 2`);
  expect(records(a)).not.toContainEqual({ type: 'ignore', job: b });
  expect(await world.posts()).toBe(posts);
  await eachPaid(['u1.com', 'u2.com'], 1);
});

it('a chain of takeovers back to A itself: never A named as the job to wait for', async () => {
  const { a, b } = await takerStopped(['a1.com', 'a2.com', 'v1.com', 'v2.com'], 'task');
  // B as if taken over whole by A (A's chunk 1, which has B's task): the walk from A reaches A again.
  appendFileSync(
    journalOf(b),
    `${JSON.stringify({ type: 'unknown', chunk: 2, candidates: [], reason: 'taken over', covered_by: { job: a, chunk: 1, whole: true } })}\n`,
  );
  const resumed = await run(['resume', a, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).not.toContain(`job ${a}, which took over`);
  await eachPaid(A_ITEMS, 1);
});

it('`--ignore-job B` stopped at the money guard records nothing (declined, Ctrl-C, no terminal, the balance); its hint, followed, goes on', async () => {
  const { a, b } = await takerStopped(['a1.com', 'a2.com', 'v1.com', 'v2.com'], 'send');
  const before = readFileSync(journalOf(a), 'utf8');
  const posts = await world.posts();
  expect((await run(['config', 'set', 'confirm-above', '1'])).code).toBe(0);
  const terminal = (stdin: string) => ({ stdin, stdinTTY: true, stdoutTTY: true, stderrTTY: true, columns: 400 });
  const declined = await run(['resume', a, '--ignore-job', b], terminal('n\n'));
  expect(declined.code, declined.stderr).toBe(13);
  expect(declined.stderr).toContain(`Continue it with: taskctl resume ${a} --ignore-job ${b}\n`);
  const cancelled = await run(['resume', a, '--ignore-job', b], terminal('\u0003'));
  expect(cancelled.code, cancelled.stderr).toBe(130);
  expect(cancelled.stderr).toContain(`Continue it with: taskctl resume ${a} --ignore-job ${b}\n`);
  const noTerminal = await run(['resume', a, '--ignore-job', b]);
  expect(noTerminal.code, noTerminal.stderr).toBe(2);
  expect(noTerminal.stderr).toContain(`Continue it with: taskctl resume ${a} --yes --ignore-job ${b}\n`);
  await world.setBalance(1);
  const poor = await run(['resume', a, '--ignore-job', b, '-y']);
  expect(poor.code, poor.stderr).toBe(6);
  expect(poor.stderr).toContain(`then continue it: taskctl resume ${a} --yes --ignore-job ${b}\n`);
  // The user's "no", and each refusal, left the job as it was: without the flag it still waits for B.
  expect(readFileSync(journalOf(a), 'utf8')).toBe(before);
  expect(await world.posts()).toBe(posts);
  expect((await run(['resume', a, '-y'])).code).toBe(9);
  await world.setBalance(100);
  const hint = /then continue it: taskctl (.*)\n/.exec(poor.stderr)?.[1] ?? '';
  const resumed = await run(hint.split(' '));
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(records(a)).toContainEqual({ type: 'ignore', job: b });
  await eachPaid(A_ITEMS, 1);
});

/** The resume command a hint names after `lead` (`Continue it with: `, `then continue it: `), as argv. */
function hinted(stderr: string, lead: string): string[] {
  const line = stderr.split('\n').find((text) => text.includes(`${lead}taskctl resume `)) ?? '';
  return line.slice(line.indexOf(`${lead}taskctl `) + lead.length + 'taskctl '.length).split(' ');
}

it('`--ignore-job B` the run did not need (B cannot create A’s chunks left): never in its hints; followed, they go on', async () => {
  const { a, b } = await takerStopped(['a1.com', 'a2.com', 'v1.com', 'v2.com'], 'task');
  const before = readFileSync(journalOf(a), 'utf8');
  await world.setBalance(1);
  const poor = await run(['resume', a, '--ignore-job', b, '-y']);
  expect(poor.code, poor.stderr).toBe(6);
  expect(poor.stderr).toContain(`then continue it: taskctl resume ${a} --yes\n`);
  expect(poor.stderr).not.toContain('--ignore-job');
  expect(readFileSync(journalOf(a), 'utf8')).toBe(before);
  await world.setBalance(100);
  // Ctrl-C 1 s into the check of its POST, lost on the way: the run went on, and still never names B.
  await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-before' });
  const cancelled = await ctrlCAtFirstLongWait(
    world,
    hinted(poor.stderr, 'then continue it: ').concat('--ignore-job', b),
    dir,
  );
  expect(cancelled.code, cancelled.stderr).toBe(130);
  expect(cancelled.stderr).toContain(`Continue it with: taskctl resume ${a} --yes\n`);
  expect(cancelled.stderr).not.toContain('--ignore-job');
  expect(records(a)).not.toContainEqual({ type: 'ignore', job: b });
  await world.clearFaults();
  const resumed = await run(hinted(cancelled.stderr, 'Continue it with: '));
  expect(resumed.code, resumed.stderr).toBe(0);
  await eachPaid(A_ITEMS, 1);
});

it('`--ignore-job B` already in A’s journal from an earlier run: its hints need not repeat it; followed, they go on', async () => {
  const { a, b } = await takerStopped(['a1.com', 'a2.com', 'v1.com', 'v2.com'], 'send');
  appendFileSync(journalOf(a), `${JSON.stringify({ type: 'ignore', job: b })}\n`);
  const before = readFileSync(journalOf(a), 'utf8');
  expect((await run(['config', 'set', 'confirm-above', '1'])).code).toBe(0);
  const terminal = { stdin: 'n\n', stdinTTY: true, stdoutTTY: true, stderrTTY: true, columns: 400 };
  const declined = await run(['resume', a, '--ignore-job', b], terminal);
  expect(declined.code, declined.stderr).toBe(13);
  expect(declined.stderr).toContain(`Continue it with: taskctl resume ${a}\n`);
  await world.setBalance(1);
  const poor = await run(['resume', a, '--ignore-job', b, '-y']);
  expect(poor.code, poor.stderr).toBe(6);
  expect(poor.stderr).toContain(`then continue it: taskctl resume ${a} --yes\n`);
  expect(`${declined.stderr}${poor.stderr}`).not.toContain(`--ignore-job ${b}`);
  expect(readFileSync(journalOf(a), 'utf8')).toBe(before);
  await world.setBalance(100);
  const resumed = await run(hinted(poor.stderr, 'then continue it: '));
  expect(resumed.code, resumed.stderr).toBe(0);
  await eachPaid(A_ITEMS, 1);
});

it('`--ignore-job B` refused by the balance after its first chunk reused a task: the journal byte for byte as it was; the hint keeps the flag, and followed pays once', async () => {
  const itemsA = [...A_ITEMS, 'x1.com', 'x2.com'];
  const { a, b } = await takerStopped(['a1.com', 'a2.com', 'v1.com', 'v2.com'], 'send', itemsA);
  // Chunk 2's items have a task already (made elsewhere, straight on the service): the resume's lookup reuses it, and
  // chunk 3 is to be bought.
  await world.createTask(S, ['u1.com', 'u2.com']);
  const before = readFileSync(journalOf(a), 'utf8');
  const posts = await world.posts();
  await world.setBalance(1);
  const poor = await run(['resume', a, '--ignore-job', b, '--reuse-window', '1h', '-y']);
  expect(poor.code, poor.stderr).toBe(6);
  expect(poor.stderr).toContain('the job has 2 of 3 tasks (2 reused): 1 3'); // chunk 1 B's, chunk 2 the lookup's
  expect(poor.stderr).toContain(`then continue it: taskctl resume ${a} --yes --ignore-job ${b}\n`);
  expect(readFileSync(journalOf(a), 'utf8')).toBe(before);
  expect(await world.posts()).toBe(posts);
  await world.setBalance(100);
  // The hint has no --reuse-window: the task of chunk 2 is not reused again, it is bought (never twice for this job).
  const resumed = await run(hinted(poor.stderr, 'then continue it: '));
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(records(a)).toContainEqual({ type: 'ignore', job: b });
  await eachPaid(['a1.com', 'a2.com', 'x1.com', 'x2.com'], 1);
});

/**
 * A job last run from a copy of its state directory that is gone (the copy deleted once it ran): what that run created
 * is not known here, so the original's resume sends nothing without a lookup that reaches back to the job's start
 * (docs/behaviour.md#jobs). On a busy account that lookup cannot search the whole window (exit 9): every hint on the
 * way, followed as printed, goes forward, never back to a refusal already met, and no item is bought twice.
 */
import { appendFileSync, cpSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { MAX_CANDIDATE_READS } from '../../../../src/core/reconcile.js';
import { postTask, stoppedByCtrlC, worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
const ITEMS = ['a.com', 'b.com', 'c.com', 'd.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-gone-copy-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], env: Record<string, string> = {}) =>
  runTaskctl(argv, { env: { ...world.env, ...env }, clock: world.clock, home: dir });

/** The balance runs out after `chunks` more tasks (its reads refused, so the guard cannot stop the run first). */
async function balanceFor(chunks: number): Promise<void> {
  await world.setBalance(chunks);
  await world.fault({ method: 'GET', path: '/balance', kind: 'status', status: 503, count: 100 });
}

/** The commands a hint names (`taskctl resume …`, up to a `;` or the end of the line), as words, in order. */
const commands = (stderr: string): string[][] =>
  [...stderr.matchAll(/taskctl (resume [^;\n]*)/g)].map((match) => (match[1] ?? '').trim().split(' '));

/**
 * Job J, four one-item chunks: chunk 1 created here, chunk 2 by a copy of the state directory that is then deleted
 * (its journal kept aside: `journal`, `path`), then, 10 minutes on, MAX_CANDIDATE_READS tasks of the service on the
 * account (`busy`, their ids).
 */
async function goneOnBusyAccount(): Promise<{ id: string; path: string; journal: Buffer; busy: Set<number> }> {
  await balanceFor(1);
  const stopped = await run(['create', S, ...ITEMS, '--chunk-size', '1', '-y']);
  expect(stopped.code, stopped.stderr).toBe(6);
  const id = /taskctl resume (j-[0-9a-z]+)/.exec(stopped.stderr)?.[1] ?? '';
  const copy = join(dir, 'NEW');
  cpSync(join(dir, 'state'), copy, { recursive: true });
  await world.clearFaults();
  await balanceFor(1);
  const there = await run(['resume', id, '-y'], { TASKCTL_STATE_DIR: copy });
  expect(there.code, there.stderr).toBe(6);
  const path = join(realpathSync(copy), 'jobs', `${id}.jsonl`);
  const journal = readFileSync(path);
  rmSync(copy, { recursive: true });
  await world.clearFaults();
  await world.setBalance(10_000);
  world.clock.advance(10 * 60_000); // the job is older than a window of 5m
  // Another client's one-item tasks, straight to the service: the lookup meets the account's list, whoever made it
  // (a taskctl create of 120 chunks cost this file over 1.5 s of CPU). As many as the lookup reads at most
  // (MAX_CANDIDATE_READS), all newer than the job's: its reads end on them, the job's tasks left unread, so it cannot
  // search its window (exit 9). One fewer and it would read the gone run's task.
  const busy = new Set<number>();
  for (let i = 0; i < MAX_CANDIDATE_READS; i++) busy.add(await postTask(world.sandbox, S, [`busy-${i}.com`]));
  return { id, path, journal, busy };
}

/** Each of ITEMS bought once, or `times[item]` times; the busy tasks, whose items are the test's own, not read. */
async function eachBought(busy: ReadonlySet<number>, times: Record<string, number>): Promise<void> {
  const counts = await world.itemCounts(busy);
  for (const item of ITEMS) expect(counts.get(item), item).toBe(times[item] ?? 1);
}

it('each hint followed in turn leads on, never back to a refusal met: the journal put back, each item bought once', async () => {
  const { id, path, journal, busy } = await goneOnBusyAccount();
  const tasks = await world.taskCount();
  const gone = await run(['resume', id, '-y']);
  expect(gone.code, gone.stderr).toBe(2);
  const [looking] = commands(gone.stderr);
  expect(looking).toEqual(['resume', id, '--yes', '--reuse-window', '21m']);
  world.clock.advance(5 * 60_000); // followed a while later, the window printed still reaches back to the job's start
  const unsearched = await run(looking ?? []);
  expect(unsearched.code, unsearched.stderr).toBe(9);
  expect(unsearched.stderr).toContain('too many tasks to search');
  // Neither a resume without the lookup nor a shorter window: both would be refused as above (exit 2).
  const [back, forget] = commands(unsearched.stderr.split('\n').at(-2) ?? '');
  expect(back).toEqual(['resume', id, '--yes']);
  expect(forget).toEqual(['resume', id, '--yes', '--forget-gone-journal', '--no-reuse']);
  expect(unsearched.stderr).not.toMatch(/--reuse-window \d+m, a window|resume \S+ (--yes )?--no-reuse/);
  expect(await world.taskCount()).toBe(tasks);
  // A resume without the lookup is still refused: the gone journal is still the job's place.
  for (const argv of [
    ['resume', id, '-y', '--no-reuse'],
    ['resume', id, '-y'],
    ['resume', id, '-y', '--reuse-window', '5m'],
  ]) {
    const refused = await run(argv);
    expect(refused.code, `${argv.join(' ')}: ${refused.stderr}`).toBe(2);
    expect(refused.stderr).toContain('which is gone');
  }
  expect(await world.taskCount()).toBe(tasks);
  // The first way, as printed: the journal put back, then the resume named.
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, journal);
  const resumed = await run(back ?? []);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(`job ${id}: the tasks of 1 chunk taken from ${path}`);
  expect(await world.taskCount()).toBe(tasks + 2);
  await eachBought(busy, {});
});

it('the other way, as printed: forgotten, the chunk its run created is bought again, as the hint said, and the job ends', async () => {
  const { id, busy } = await goneOnBusyAccount();
  const unsearched = await run(commands((await run(['resume', id])).stderr)[0] ?? []);
  expect(unsearched.code, unsearched.stderr).toBe(9);
  const forget = commands(unsearched.stderr.split('\n').at(-2) ?? '')[1] ?? [];
  expect(unsearched.stderr).toContain('buying again whatever its run created of the chunks left');
  // Declined at the money guard (no terminal to ask on): nothing forgotten, and the hint keeps the flag.
  expect((await run(['config', 'set', 'confirm-above', '1'])).code).toBe(0);
  const refused = await run(forget);
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr).toContain(`Continue it with: taskctl resume ${id} --yes --forget-gone-journal\n`);
  expect((await run(['resume', id, '-y', '--no-reuse'])).stderr).toContain('which is gone');
  const forgotten = await run(commands(refused.stderr).at(-1) ?? []);
  expect(forgotten.code, forgotten.stderr).toBe(0);
  expect(forgotten.stderr).toContain('what that run created is forgotten (--forget-gone-journal)');
  await eachBought(busy, { 'b.com': 2 });
  // Recorded once it sent: the job's later runs need no flag.
  const summary = await run(['resume', id]);
  expect(summary.code, summary.stderr).toBe(0);
});

/**
 * Job J of `items`, one-item chunks: chunk 1 created here, chunk 2 by a copy of the state directory that is then
 * deleted, `minutes` later the job's resume here (exit 2): the commands its hint names.
 */
async function goneAfter(
  items: readonly string[],
  minutes: number,
  argv: readonly string[] = ['-y'],
  create: readonly string[] = [],
) {
  await balanceFor(1);
  const stopped = await run(['create', S, ...items, '--chunk-size', '1', '-y', ...create]);
  expect(stopped.code, stopped.stderr).toBe(6);
  const id = /taskctl resume (j-[0-9a-z]+)/.exec(stopped.stderr)?.[1] ?? '';
  const copy = join(dir, 'NEW');
  cpSync(join(dir, 'state'), copy, { recursive: true });
  await world.clearFaults();
  await balanceFor(1);
  const there = await run(['resume', id, '-y'], { TASKCTL_STATE_DIR: copy });
  expect(there.code, there.stderr).toBe(6);
  rmSync(copy, { recursive: true });
  await world.clearFaults();
  await world.setBalance(10_000);
  world.clock.advance(minutes * 60_000);
  const gone = await run(['resume', id, ...argv]);
  expect(gone.code, gone.stderr).toBe(2);
  expect(gone.stderr).toContain('which is gone');
  return { id, hint: commands(gone.stderr)[0] ?? [] };
}

async function boughtOnce(items: readonly string[]): Promise<void> {
  const counts = await world.itemCounts();
  for (const item of items) expect(counts.get(item), item).toBe(1);
}

it('the hint as printed reuses the chunk the gone run created whatever became of its task: a failed item is not bought again', async () => {
  const items = ['a.com', 'fail-b.net', 'c.com'];
  const { hint } = await goneAfter(items, 2);
  const resumed = await run(hint);
  expect(resumed.code, resumed.stderr).toBe(0);
  await boughtOnce(items);
});

it('a lookup that runs long after the window was checked (a prompt read a quarter of an hour) still reaches back to the job start', async () => {
  const items = ['a.com', 'b.com', 'c.com'];
  expect((await run(['config', 'set', 'confirm-above', '1'])).code).toBe(0);
  const { hint } = await goneAfter(items, 2, []);
  expect(hint).not.toContain('--yes');
  async function* slowAnswer(): AsyncGenerator<Buffer> {
    world.clock.advance(15 * 60_000);
    yield Buffer.from('y\n');
  }
  const stdin = Object.assign(slowAnswer(), { isTTY: true });
  const resumed = await runTaskctl(hint, {
    env: world.env,
    clock: world.clock,
    home: dir,
    stdinStream: stdin,
    stdoutTTY: true,
    stderrTTY: true,
    columns: 400,
  });
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toMatch(/\[y\/N\]|\? /);
  await boughtOnce(items);
});

it("the job's own window reaching back to its start lets a bare resume past, and a printed window never narrows it", async () => {
  const items = ['a.com', 'b.com', 'c.com'];
  const { id } = await goneAfter(items, 2, ['-y', '--reuse-window', '1m'], ['--reuse-window', '24h']);
  // Not refused for want of a flag: the job's own --reuse-window 24h (recorded by its create) reaches back to its start.
  const resumed = await run(['resume', id, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  await boughtOnce(items);
});

it('in a run let past by the window, a refusal at the money guard names a resume with the window: followed as printed, it ends the job', async () => {
  const items = ['a.com', 'b.com', 'c.com'];
  expect((await run(['config', 'set', 'confirm-above', '1'])).code).toBe(0);
  const { hint } = await goneAfter(items, 2, []);
  world.clock.advance(5 * 60_000);
  const refused = await run(hint);
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr).toContain('no terminal to confirm on');
  const next = commands(refused.stderr).at(-1) ?? [];
  // Reckoned when printed: the window still reaches back to the job's start (7 minutes old, 10 to spare).
  expect(next.slice(-2)).toEqual(['--reuse-window', '18m']);
  world.clock.advance(5 * 60_000);
  const resumed = await run([...next, '--yes']);
  expect(resumed.code, resumed.stderr).toBe(0);
  await boughtOnce(items);
});

it('an exit 9 in a run let past by the window names --adopt with the window: followed as printed, the chunk is adopted and nothing bought', async () => {
  const id = await stoppedByCtrlC(world, ['create', S, 'k.com', '-y', '-q'], dir, 'reset-before');
  // Two tasks of the chunk's item made by hand (straight on the service: how they came is not the subject).
  const task = await postTask(world.sandbox, S, ['k.com']);
  await postTask(world.sandbox, S, ['k.com']);
  const copy = join(dir, 'NEW');
  cpSync(join(dir, 'state'), copy, { recursive: true });
  const there = await run(['resume', id, '-y'], { TASKCTL_STATE_DIR: copy });
  expect(there.code, there.stderr).toBe(9);
  rmSync(copy, { recursive: true });
  world.clock.advance(2 * 60_000);
  const tasks = (await world.tasks()).length;
  const gone = await run(['resume', id, '-y']);
  expect(gone.code, gone.stderr).toBe(2);
  const doubt = await run(commands(gone.stderr)[0] ?? []);
  expect(doubt.code, doubt.stderr).toBe(9);
  const adopt =
    (commands(doubt.stderr).find((argv) => argv.includes('--adopt')) ?? []).join(' ').split(',')[0]?.split(' ') ?? [];
  expect(adopt, doubt.stderr).toContain('--reuse-window');
  // The same adopt without the window: its exit 2 names it with the window, --adopt kept (never a loop back to exit 9).
  const bare = await run(['resume', id, '--yes', '--adopt', `1=${task}`]);
  expect(bare.code, bare.stderr).toBe(2);
  const looking = commands(bare.stderr)[0] ?? [];
  expect(looking).toEqual(expect.arrayContaining(['--adopt', `1=${task}`, '--reuse-window']));
  const adopted = await run(looking);
  expect(adopted.code, adopted.stderr).toBe(0);
  expect(adopted.stderr).toContain(`task ${task} adopted`);
  expect((await world.tasks()).length).toBe(tasks);
});

it('a refused chunk stops a run past a gone journal with a hint that keeps its way past it: the window, or --forget-gone-journal', async () => {
  const items = ['a.com', 'bad item here', 'c.com'];
  const created = await run(['create', S, ...items, '--no-validate', '--chunk-size', '1', '-y']);
  expect(created.code, created.stderr).toBe(3);
  const id = /taskctl resume (j-[0-9a-z]+)/.exec(created.stderr)?.[1] ?? '';
  const copy = join(dir, 'NEW');
  cpSync(join(dir, 'state'), copy, { recursive: true });
  expect((await run(['resume', id, '-y'], { TASKCTL_STATE_DIR: copy })).code).toBe(3);
  rmSync(copy, { recursive: true });
  world.clock.advance(2 * 60_000);
  const forgetting = await run(['resume', id, '-y', '--forget-gone-journal']);
  expect(forgetting.code, forgetting.stderr).toBe(3);
  expect(commands(forgetting.stderr).at(-1)).toEqual([
    'resume',
    id,
    '--skip-refused',
    '--yes',
    '--forget-gone-journal',
  ]);
  const looking = await run(['resume', id, '-y', '--reuse-window', '15m']);
  expect(looking.code, looking.stderr).toBe(3);
  const next = commands(looking.stderr).at(-1) ?? [];
  expect(next).toEqual(['resume', id, '--skip-refused', '--yes', '--reuse-window', '15m']); // never narrower than the run's
  const resumed = await run(next);
  expect(resumed.code, resumed.stderr).toBe(0);
  await boughtOnce(['a.com', 'c.com']);
});

const YEAR_MINUTES = 365 * 24 * 60;
/** A command a hint names, up to the words that may follow it in brackets. */
const commandOnly = (argv: readonly string[]) => argv.join(' ').split(' (')[0]?.split(' ') ?? [];

it('a job started more than a year ago: no window reaches back to it (a longer one is refused), so the hint forgets the gone journal, says what that buys again, and runs as printed', async () => {
  const items = ['a.com', 'b.com', 'c.com'];
  const { id, hint } = await goneAfter(items, YEAR_MINUTES + 60);
  expect(hint).not.toContain('--reuse-window');
  expect(hint).toEqual(['resume', id, '--yes', '--forget-gone-journal']);
  const gone = await run(['resume', id, '-y']);
  expect(gone.stderr).toContain('more than a year ago: no --reuse-window reaches back that far');
  expect(gone.stderr).toContain('buying again whatever its run created of the chunks left');
  const resumed = await run(hint);
  expect(resumed.code, resumed.stderr).toBe(0);
  const counts = await world.itemCounts();
  expect(counts.get('b.com')).toBe(2); // the gone run's chunk, bought again as the hint said
  expect(counts.get('c.com')).toBe(1);
});

it('a job a few minutes short of a year old: the window printed is the longest one read (8760h), and it still lets the run past', async () => {
  const items = ['a.com', 'b.com', 'c.com'];
  const { hint } = await goneAfter(items, YEAR_MINUTES - 5);
  expect(hint.slice(-2)).toEqual(['--reuse-window', '8760h']);
  const resumed = await run(hint);
  expect(resumed.code, resumed.stderr).toBe(0);
  await boughtOnce(items);
});

it('a run let past by the longest window whose job turns a year old meanwhile: its later hint forgets the gone journal in words, never a window refused', async () => {
  const items = ['a.com', 'b.com', 'c.com'];
  expect((await run(['config', 'set', 'confirm-above', '1'])).code).toBe(0);
  const { id, hint } = await goneAfter(items, YEAR_MINUTES - 5, []);
  expect(hint.slice(-2)).toEqual(['--reuse-window', '8760h']);
  async function* slowNo(): AsyncGenerator<Buffer> {
    world.clock.advance(15 * 60_000);
    yield Buffer.from('n\n');
  }
  const declined = await runTaskctl(hint, {
    env: world.env,
    clock: world.clock,
    home: dir,
    stdinStream: Object.assign(slowNo(), { isTTY: true }),
    stdoutTTY: true,
    stderrTTY: true,
    columns: 400,
  });
  expect(declined.code, declined.stderr).toBe(13);
  const next = commandOnly(commands(declined.stderr).at(-1) ?? []);
  expect(next).toEqual(['resume', id, '--forget-gone-journal']);
  // The command alone on its line, words before it: the line pastes into a shell as it is.
  expect(declined.stderr.trimEnd().split('\n').at(-1)).toBe(`taskctl resume ${id} --forget-gone-journal`);
  expect(declined.stderr).toContain(
    'the job started more than a year ago, further back than any --reuse-window reaches: the resume below buys again whatever that run created of the chunks left (or put that journal back and drop --forget-gone-journal):\ntaskctl resume',
  );
  const resumed = await run([...next, '--yes']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect((await world.itemCounts()).get('b.com')).toBe(2);
});

it('the exit 2 of a gone journal repeats no --ignore-job the job has recorded already: followed as printed, it goes on', async () => {
  const items = ['a.com', 'b.com', 'c.com'];
  const { id } = await goneAfter(items, 2);
  // A job this one passed over in an earlier run, recorded; its takeover since gone (it is no taker of this job now).
  appendFileSync(
    join(dir, 'state', 'jobs', `${id}.jsonl`),
    `${JSON.stringify({ type: 'ignore', job: 'j-zzzzzzzz' })}\n`,
  );
  const gone = await run(['resume', id, '-y', '--ignore-job', 'j-zzzzzzzz']);
  expect(gone.code, gone.stderr).toBe(2);
  const [looking] = commands(gone.stderr);
  expect(looking).toEqual(['resume', id, '--yes', '--reuse-window', '13m']);
  const resumed = await run(looking ?? []);
  expect(resumed.code, resumed.stderr).toBe(0);
  await boughtOnce(items);
});

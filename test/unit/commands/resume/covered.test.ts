/**
 * A job stopped with its chunk in doubt (Ctrl-C while its lost POST was checked), then a re-run of the same items
 * (a create of them in another order, so not that job continued) that waited for that request to be past landing and created their task: the stopped job's own
 * `resume`, the hint it printed, must take that task and never send the items again (core/submit/hand-over.ts).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { tryLock } from '../../../../src/store/lock-file.js';
import { runTaskctl, type RunOptions } from '../run-in-process.js';
import { stoppedByCtrlC, worldEachTest, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
const FAILED = ['fail-a.com', 'fail-b.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-covered-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], options: Omit<RunOptions, 'env' | 'clock'> = {}) =>
  world.run(argv, { home: dir, ...options });

/** The journal of job `id` in the state directory of the runs' home, as records (and written back). */
function journalPath(id: string): string {
  const found = (function find(at: string): string | undefined {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) {
        const inner = find(path);
        if (inner !== undefined) return inner;
      } else if (entry.name === `${id}.jsonl`) return path;
    }
    return undefined;
  })(dir);
  if (found === undefined) throw new Error(`no journal of ${id} under ${dir}`);
  return found;
}
const records = (id: string) =>
  readFileSync(journalPath(id), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
/** The records kept, each one's cover a chunk's only (no `whole`, which a journal of an older version may hold). */
const keep = (id: string, keepIt: (record: Record<string, unknown>) => boolean) =>
  writeFileSync(
    journalPath(id),
    records(id)
      .filter(keepIt)
      .map((record) =>
        record.covered_by ? { ...record, covered_by: { ...record.covered_by, whole: undefined } } : record,
      )
      .map((record) => `${JSON.stringify(record)}\n`)
      .join(''),
  );

/**
 * A task with two failed items; `retry` of it stopped by Ctrl-C while its lost POST (reset before reaching the service)
 * was checked (job `stopped`, its chunk 1 in doubt); then the same `retry` again, which waits until that request could
 * no longer land and creates the items' task (job `rerun`, task `task`).
 */
async function stoppedJob(): Promise<{ id: string; stopped: string }> {
  const original = await run(['create', S, 'ok.com', ...FAILED, '--wait', '-q']);
  expect(original.code, original.stderr).toBe(11);
  const id = original.stdout.trim().split('\n')[0] ?? '';
  const stopped = await stoppedByCtrlC(world, ['retry', id, '-y', '-q'], dir, 'reset-before');
  return { id, stopped };
}

async function stoppedThenRerun(): Promise<{ stopped: string; rerun: string; task: number }> {
  const { stopped } = await stoppedJob();
  // The same items in another order: not that job's work again (core/submit/same-work.ts), so not its continuation,
  // but a re-run that takes its chunk over (not the job whole: hand-over.ts).
  const again = await run(['create', S, ...[...FAILED].reverse(), '--reuse-window', '1h', '-y', '-q']);
  expect(again.code, again.stderr).toBe(0);
  const task = Number(again.stdout.trim());
  const rerun = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(again.stderr)?.[1] ?? '';
  expect(again.stderr).toContain(
    `job ${stopped} stopped with these items in doubt (its chunk 1); this run's task ${task} covers them, and that job takes it (taskctl resume ${stopped})`,
  );
  return { stopped, rerun, task };
}

/** How many tasks hold each failed item: once for the original task, once for the retry. */
async function paidOnce(): Promise<void> {
  const counts = await world.itemCounts();
  for (const item of FAILED) expect(counts.get(item), item).toBe(2);
}

it('`resume` of the stopped job, its own hint run verbatim, takes the re-run’s task and sends nothing', async () => {
  const { stopped, task } = await stoppedThenRerun();
  const posts = await world.posts();
  const resumed = await run(['resume', stopped, '-y', '-q']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(await world.posts()).toBe(posts);
  await paidOnce();
  expect(records(stopped)).toContainEqual(expect.objectContaining({ type: 'reconciled', chunk: 1, task }));
  // The --job commands read that task as the chunk's too.
  const shown = await run(['show', '--job', stopped, '-o', 'json']);
  expect(shown.stderr).not.toMatch(/in doubt|not this chunk's|resume/);
  expect(shown.stdout).toContain(`"task": ${task}`);
});

it('the re-run killed before it gave the stopped job its task: `resume` reads it from the re-run’s journal', async () => {
  const { stopped, rerun, task } = await stoppedThenRerun();
  keep(stopped, (record) => record.type !== 'reconciled' && record.type !== 'done');
  expect(records(stopped).at(-1)).toMatchObject({ type: 'unknown', chunk: 1, covered_by: { job: rerun, chunk: 1 } });
  const posts = await world.posts();
  const resumed = await run(['resume', stopped, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(`next: take chunk 1's task from job ${rerun}, which took it over, then send`);
  expect(resumed.stderr).toContain(`chunk 1: task ${task} of job ${rerun} (its chunk 1) covers its items`);
  expect(await world.posts()).toBe(posts);
  await paidOnce();
});

it('the re-run killed with its own POST out: exit 9, settle that job first; both hints run verbatim pay once', async () => {
  const { stopped, rerun, task } = await stoppedThenRerun();
  keep(stopped, (record) => record.type !== 'reconciled' && record.type !== 'done');
  keep(rerun, (record) => record.type !== 'created' && record.type !== 'done');
  const posts = await world.posts();
  const journals = () => [stopped, rerun].map((id) => readFileSync(journalPath(id), 'utf8'));
  const before = journals();
  // The hint to settle that job first carries none of this run's wait flags; its own resume keeps them. (Refused
  // before anything is recorded, so it shares this scenario with the runs below.)
  const waiting = await run(['resume', stopped, '-y', '--wait', '--allow-item-failures']);
  expect(waiting.code, waiting.stderr).toBe(9);
  expect(/Settle that job first: taskctl (.*); then: taskctl (.*)$/m.exec(waiting.stderr)?.slice(1)).toEqual([
    `resume ${rerun} --yes`,
    `resume ${stopped} --yes --wait --allow-item-failures`,
  ]);
  expect(journals()).toEqual(before);
  const refused = await run(['resume', stopped, '-y']);
  expect(refused.code, refused.stderr).toBe(9);
  expect(refused.stderr).toContain(`its items were taken over by job ${rerun} (its chunk 1), which has no task`);
  const hint = /Settle that job first: taskctl (.*); then: taskctl (.*)$/m.exec(refused.stderr);
  // Both carry the -y of the run that printed them: they run where it ran (a script), with no question.
  expect(hint?.slice(1)).toEqual([`resume ${rerun} --yes`, `resume ${stopped} --yes`]);
  for (const command of hint?.slice(1) ?? []) {
    const result = await run([...command.split(' '), '-y', '-q']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(String(task));
  }
  expect(await world.posts()).toBe(posts);
  await paidOnce();
});

it('the re-run’s task cannot be read: exit 9 naming it, nothing sent', async () => {
  const { stopped, rerun } = await stoppedThenRerun();
  keep(stopped, (record) => record.type !== 'reconciled' && record.type !== 'done');
  writeFileSync(
    journalPath(rerun),
    records(rerun)
      .map((record) => JSON.stringify(record.type === 'created' ? { ...record, task: 9999 } : record) + '\n')
      .join(''),
  );
  const posts = await world.posts();
  const refused = await run(['resume', stopped, '-y']);
  expect(refused.code, refused.stderr).toBe(9);
  expect(refused.stderr).toContain(`its items are task 9999 of job ${rerun} (its chunk 1), which cannot be read`);
  expect(refused.stderr).toContain(`taskctl show 9999`);
  expect(await world.posts()).toBe(posts);
});

it('a `resume` of the stopped job running meanwhile (holding its lock): the re-run waits for it, sending nothing, then continues the job', async () => {
  const { id, stopped } = await stoppedJob();
  const lock = tryLock(join(dirname(dirname(journalPath(stopped))), 'locks', `${stopped}.lock`));
  if (!('release' in lock)) throw new Error('the stopped job is locked');
  const posts = await world.posts();
  const during: number[] = [];
  let waits = 0;
  const again = await runTaskctl(['retry', id, '-y', '-q'], {
    env: world.env,
    home: dir,
    clock: {
      now: () => world.clock.now(),
      sleep: async (ms, signal) => {
        // Held for 100 s of waits (past the stopped request's landing, 62 s after its send): that resume settles it.
        if (++waits > 400) lock.release();
        else if (waits % 50 === 0) during.push(await world.posts());
        return world.clock.sleep(ms, signal);
      },
    },
  });
  expect(again.code, again.stderr).toBe(0);
  expect(during.length).toBe(8);
  expect(during.every((count) => count === posts)).toBe(true);
  // The stopped job is the re-run's work again (core/submit/same-work.ts): its run is waited for as a whole.
  expect(again.stderr).toMatch(
    new RegExp(
      `^job ${stopped}, started \\S+, holds the same items in the same chunks, and another taskctl run \\(process \\d+ on this machine\\) is running it: waiting for that run to end`,
      'm',
    ),
  );
  // Its resume gone without a task (an exit 9, say): the re-run continues that job, settling its chunk in doubt, and
  // the job's own resume has nothing left to send.
  expect(again.stderr).toContain(`continuing job ${stopped}, started `);
  const task = Number(again.stdout.trim());
  const resumed = await run(['resume', stopped, '-y', '-q']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stdout).toBe('');
  expect(records(stopped)).toContainEqual(expect.objectContaining({ chunk: 1, task }));
  await paidOnce();
});

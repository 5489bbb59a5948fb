/**
 * No `--job` command acts on a task whose items are not its chunk's: a journal whose chunk 1 names another task of
 * the same service and size (hand-edited, or another job's file) is exit 8 naming the chunk, in `show --job` and
 * `retry --job` (the items compared as a multiset with the send record's digest) and in `wait --job` (service and
 * count: the wait reads no items). A task of the same size that existed before the chunk was sent (in its send record's
 * snapshot, or created more than a minute before it on the server's clock, which the send record keeps) is caught by
 * all three without reading items; a server clock far behind never makes the job's own tasks look older. A send record
 * without a digest (an older journal) is checked by service, count and send.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { SERVICE, tempDir } from './fixture.js';
import { sandboxRun } from '../../commands/run-in-process.js';
import { sandboxJob } from '../../commands/sandbox-job.js';
import { startSandboxWorld } from '../../commands/sandbox-world.js';
import { createTask } from '../../../sandbox/sandbox-calls.js';

interface Row {
  type: string;
  chunk?: number;
  task?: number;
  items_digest?: string;
}

/** Rewrites the journal: chunk 1's task becomes `task`; `keepDigest` false drops the send records' digests. */
function edit(journal: string, task: number, keepDigest = true): void {
  const rows = readFileSync(journal, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Row)
    .map((row) => (row.type === 'created' && row.chunk === 1 ? { ...row, task } : row))
    .map((row) => {
      if (keepDigest || row.type !== 'send') return row;
      const { items_digest: _gone, ...rest } = row;
      return rest;
    });
  writeFileSync(journal, rows.map((row) => JSON.stringify(row)).join('\n') + '\n');
}

/**
 * Another task of the service on the account, posted straight to the sandbox (its create is not the subject), and its
 * id.
 */
async function otherTask(sandbox: Parameters<typeof createTask>[0], items: string[]): Promise<number> {
  const { status, body } = await createTask(sandbox, items, SERVICE);
  expect(status).toBe(201);
  return (body as { data: { id: number } }).data.id;
}

it('send records carry an order-independent digest of their chunk', async () => {
  const { journal } = await sandboxJob(['a.com', 'b.com', 'c.com', 'd.com'], 2);
  const sends = readFileSync(journal, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Row)
    .filter((row) => row.type === 'send');
  expect(sends.map((row) => row.items_digest)).toEqual([expect.stringMatching(/^[0-9a-f]{32}$/), expect.any(String)]);
  expect(sends[0]?.items_digest).not.toBe(sends[1]?.items_digest);
});

it('chunk 1 edited to another task: show and retry --job (items), wait --job (count) are exit 8 naming the chunk', async () => {
  const { run, journal, sandbox } = await sandboxJob(['a.com', 'b.com', 'c.com', 'd.com'], 2);
  const stranger = await otherTask(sandbox, ['x.com', 'y.com']);
  edit(journal, stranger);

  const show = await run(['show', '--job', journal, '-o', 'ndjson']);
  expect(show.code, show.stderr).toBe(8);
  expect(show.stderr).toMatch(new RegExp(`chunk 1 of \\S+ does not match task ${stranger}: its items are not`));
  expect(show.stdout).not.toMatch(/x\.com|y\.com/);

  const retry = await run(['retry', '--job', journal, '--dry-run']);
  expect(retry.code, retry.stderr).toBe(8);
  expect(retry.stderr).toMatch(new RegExp(`chunk 1 of \\S+ does not match task ${stranger}`));

  // The wait compares what it reads: the service and the count. Another size is caught there.
  edit(journal, await otherTask(sandbox, ['p.com', 'q.com', 'r.com']));
  const wait = await run(['wait', '--job', journal, '--no-results']);
  expect(wait.code, wait.stderr).toBe(8);
  expect(wait.stderr).toMatch(/chunk 1 of \S+ does not match task \d+: it has 3 items, not 2/);
});

it('a send record without a digest (an older journal): checked by service and count', async () => {
  const { run, journal, ids, sandbox } = await sandboxJob(['a.com', 'b.com', 'c.com', 'd.com'], 2);
  edit(journal, await otherTask(sandbox, ['x.com', 'y.com', 'z.com']), false);
  const show = await run(['show', '--job', journal, '-o', 'ndjson']);
  expect(show.code, show.stderr).toBe(8);
  expect(show.stderr).toMatch(/chunk 1 of \S+ does not match task \d+: it has 3 items, not 2/);
  // Unedited but without digests: the job reads as before.
  edit(journal, ids[0] ?? 0, false);
  expect((await run(['show', '--job', journal, '-o', 'ndjson'])).code).toBe(0);
});

/** The `before` of chunk 1's send record: the tasks of its service and size seen just before its POST. */
function seenBefore(journal: string): number[] | undefined {
  return readFileSync(journal, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Row & { before?: number[] })
    .find((row) => row.type === 'send' && row.chunk === 1)?.before;
}

it('chunk 1 edited to an older task of the same size: wait, show and retry --job are exit 8 naming the chunk', async () => {
  const { run, clock, sandbox } = await sandboxRun(0);
  const pair = (a: string, b: string) => otherTask(sandbox, [a, b]);
  // Long before the job (more than any clock skew allowed): older than the send by its created_at.
  const long = await pair('x.com', 'y.com');
  clock.nowMs += 10 * 60_000;
  // Just before the job: within the skew allowance, but in the snapshot the chunk's send record keeps.
  const just = await pair('v.com', 'w.com');
  clock.nowMs += 30_000;
  const journal = join(tempDir(), 'job.jsonl');
  const created = await run(
    ['create', SERVICE, 'a.com', 'b.com', 'c.com', 'd.com', '--chunk-size', '2'].concat(['--journal', journal, '-y']),
  );
  expect(created.code, created.stderr).toBe(0);
  // In the snapshot the send record keeps: the one of the last minutes (a new task is never stamped minutes before it).
  expect(seenBefore(journal)).toEqual([just]);
  const message = (task: number) =>
    new RegExp(`chunk 1 of \\S+ does not match task ${task}: it existed before the chunk was sent`);
  for (const stranger of [long, just]) {
    edit(journal, stranger);
    const wait = await run(['wait', '--job', journal, '--no-results']);
    expect(wait.code, wait.stderr).toBe(8);
    expect(wait.stderr).toMatch(message(stranger));
  }
  const show = await run(['show', '--job', journal, '-o', 'ndjson']);
  expect(show.code, show.stderr).toBe(8);
  expect(show.stderr).toMatch(message(just));
  const retry = await run(['retry', '--job', journal, '--dry-run']);
  expect(retry.code, retry.stderr).toBe(8);
  expect(retry.stderr).toMatch(message(just));
});

it("an older journal (no server clock in its sends): the task its POST answered is its chunk's, whatever the clocks", async () => {
  const { run, journal, ids } = await sandboxJob(['a.com', 'b.com', 'c.com', 'd.com'], 2);
  // The server's clock ten minutes behind: the task's created_at reads earlier than the send.
  const rows = readFileSync(journal, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Row & { sent_at?: number; server_offset?: number })
    .map(({ server_offset: _older, ...row }) =>
      row.type === 'send' && row.sent_at !== undefined ? { ...row, sent_at: row.sent_at + 10 * 60_000 } : row,
    );
  writeFileSync(journal, rows.map((row) => JSON.stringify(row)).join('\n') + '\n');
  expect(ids).toHaveLength(2);
  const wait = await run(['wait', '--job', journal, '--no-results']);
  expect(wait.code, wait.stderr).toBe(0);
});

it("a Date clock 90 s ahead of the one stamping tasks (a gateway): the task its POST answered is still its chunk's", async () => {
  const { run, journal, ids } = await sandboxJob(['a.com', 'b.com', 'c.com', 'd.com'], 2);
  // The offset each send recorded came from Date headers: make them read 90 s ahead of the tasks' created_at.
  const rows = readFileSync(journal, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Row & { server_offset?: number })
    .map((row) => (row.type === 'send' ? { ...row, server_offset: (row.server_offset ?? 0) + 90_000 } : row));
  writeFileSync(journal, rows.map((row) => JSON.stringify(row)).join('\n') + '\n');
  expect(ids).toHaveLength(2);
  const wait = await run(['wait', '--job', journal, '--no-results']);
  expect(wait.stderr).not.toMatch(/does not match/);
  expect(wait.code, wait.stderr).toBe(0);
});

it.each([
  ['its POST answered', 'created'],
  ['its scan recovered', 'recovered'],
])(
  "a Date clock 5 minutes ahead of the one stamping tasks: the task %s, as the run recorded it, is its chunk's",
  async (_, how) => {
    const { run, journal, ids } = await sandboxJob(['a.com', 'b.com', 'c.com', 'd.com'], 2);
    // Each send's offset from Date headers 5 minutes ahead of the tasks' created_at: a run took each task all the same
    // (a listing before its POST showed it new, or its window was placed by an earlier task's own time).
    const rows = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Row & { server_offset?: number; how?: string })
      .map((row) => (row.type === 'send' ? { ...row, server_offset: (row.server_offset ?? 0) + 300_000 } : row))
      .map((row) => (row.type === 'created' ? { ...row, how } : row));
    writeFileSync(journal, rows.map((row) => JSON.stringify(row)).join('\n') + '\n');
    expect(ids).toHaveLength(2);
    for (const argv of [
      ['wait', '--job', journal, '--no-results'],
      ['show', '--job', journal, '-o', 'ndjson'],
      ['retry', '--job', journal, '--dry-run'],
    ]) {
      const result = await run(argv);
      expect(result.stderr, argv.join(' ')).not.toMatch(/does not match/);
      expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
    }
    // A task adopted by hand is still judged by its time: the user may have given an older one.
    const adopted = rows.map((row) =>
      row.type === 'created' && row.chunk === 1
        ? {
            type: 'reconciled',
            chunk: 1,
            task: row.task,
            cost: 2,
            by: 'user',
            created_at: (row as { created_at?: string }).created_at,
          }
        : row,
    );
    writeFileSync(journal, adopted.map((row) => JSON.stringify(row)).join('\n') + '\n');
    const wait = await run(['wait', '--job', journal, '--no-results']);
    expect(wait.code, wait.stderr).toBe(8);
    expect(wait.stderr).toMatch(/chunk 1 of \S+ does not match task \d+: it existed before the chunk was sent/);
  },
);

it("the server's clock ten minutes behind: the job's own tasks are its chunks' for wait, retry --job and diff", async () => {
  const world = await startSandboxWorld({ clockSkewMs: -10 * 60_000 });
  try {
    // Created long before the job on the server's own clock: caught with the offset the send recorded.
    const older = await otherTask(world.sandbox, ['x.com', 'y.com']);
    world.clock.nowMs += 10 * 60_000;
    const journal = join(tempDir(), 'job.jsonl');
    const items = ['a.com', 'b.com', 'c.com', 'd.com'];
    const created = await world.run([
      'create',
      SERVICE,
      ...items,
      '--chunk-size',
      '2',
      '--journal',
      journal,
      '-y',
      '-q',
    ]);
    expect(created.code, created.stderr).toBe(0);
    for (const argv of [
      ['wait', '--job', journal, '--no-results'],
      ['retry', '--job', journal, '--dry-run'],
      ['diff', journal, journal],
    ]) {
      const result = await world.run(argv);
      expect(result.stderr, argv.join(' ')).not.toMatch(/does not match/);
      expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
    }
    edit(journal, older);
    const wait = await world.run(['wait', '--job', journal, '--no-results']);
    expect(wait.code, wait.stderr).toBe(8);
    expect(wait.stderr).toMatch(/chunk 1 of \S+ does not match task \d+: it existed before the chunk was sent/);
    // The reason is said as it is: the items were not compared, and the same task is not offered again.
    expect(wait.stderr).not.toMatch(/other items/);
  } finally {
    await world.close();
  }
});

it('a task that lists only some of its items is not judged by them: neither "other items" nor a match is claimed', async () => {
  const { checkChunkTask } = await import('../../../../src/core/job/job-chunks.js');
  const { itemsDigest } = await import('../../../../src/core/items/multiset.js');
  const job = { file: 'job.jsonl', service: SERVICE };
  const chunk = { chunk: 1, items: 2, task: 7, digest: itemsDigest(['a.com', 'b.com']) };
  const task = (targets: string[]) => ({
    id: 7,
    service: SERVICE,
    status: 'completed',
    total_items: 2,
    cost: 2,
    created_at: '2026-01-01T00:00:00Z',
    completed_at: null,
    items: targets.map((target) => ({ target, status: 'completed' })),
  });
  // One of two listed (a server that pages or trims them): the count and the service are what is known.
  expect(() => checkChunkTask(job, chunk, task(['x.com']))).not.toThrow();
  // Both listed, and others: caught.
  expect(() => checkChunkTask(job, chunk, task(['x.com', 'y.com']))).toThrow(
    /its items are not the ones the chunk sent/,
  );
  expect(() => checkChunkTask(job, chunk, task(['b.com', 'a.com']))).not.toThrow();
});

/**
 * A journal's records rebuilt into its job: a big job (tens of thousands of chunks) with a damaged line still is one;
 * what is held is the job's state, never the records, and of a send's list of earlier tasks only what is asked of it
 * (`resume` folds its journal as the `--job` commands do: docs/performance.md#a-create-that-is-a-job).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jobChunks } from '../../../../src/core/job/job-chunks.js';
import { JobFold, lostChunks, rebuild, type JobState } from '../../../../src/core/submit/journal-records.js';
import { accountKey } from '../../../../src/store/cache.js';
import { T0 } from '../../../clock.js';
import { API_KEY, BASE_URL, mockApi, runTaskctl } from '../../commands/run-in-process.js';
import { tempDir } from '../job/fixture.js';

/** 130,000 records name a chunk: past what a call can take as arguments (Math.max(...list) overflowed). */
const CHUNKS = 65_000;

const jobRecord = (chunks: number, extra: object = {}) => ({
  ...{ type: 'job', version: 1, created_at: new Date(T0).toISOString(), service: 's', base_url: 'http://h/api/v1' },
  ...{ account: 'a', chunk_size: 1, format: null, column: null, validate: true, keep_duplicates: false },
  ...{ skip_invalid: false, inputs: [], items: chunks, items_sha256: 'y', chunks },
  ...extra,
});

// One literal, not spread from parts as jobRecord is: 65,000 of them are built (the spreads cost a third of the file).
const send = (chunk: number, before: number[]) => ({
  type: 'send',
  chunk,
  first: chunk - 1,
  count: 1,
  sha256: 'z',
  sent_at: T0 + chunk,
  settle_after: T0 + chunk + 1,
  before,
  before_complete: true,
});

/** The task ids the state holds in its sends' lists of earlier tasks, all chunks together. */
const listed = (state: JobState | undefined): number =>
  [...(state?.chunks.values() ?? [])].reduce((sum, chunk) => sum + (chunk.send?.before.length ?? 0), 0);

/** 100 ids seen before chunk `chunk`: its own task (1000 + chunk) among them for an even chunk. */
const seenBefore = (chunk: number): number[] =>
  Array.from({ length: 100 }, (_, i) => 900 + chunk + i + (chunk % 2 === 0 ? 1 : 0));

describe('rebuild', () => {
  it('a chunk refused for its items stays refused (never in doubt, never to send); a damaged line later leaves it so', () => {
    const refusal = { type: 'reconciled', chunk: 2, task: null, cost: 0, by: 'answer', refused: 'items[0] "a b"' };
    const records: unknown[] = [
      jobRecord(3),
      send(1, []),
      { type: 'created', chunk: 1, task: 7, cost: 1, how: 'created' },
    ];
    records.push(send(2, []), refusal, { type: 'done', tasks: 2, items: 2, cost: 2 });
    const state = rebuild(records, '/j.jsonl');
    expect(state?.chunks.get(2)).toEqual({ refused: 'items[0] "a b"' });
    expect(jobChunks(state!)[1]).toMatchObject({ chunk: 2, refused: 'items[0] "a b"' });
    const damaged = rebuild([...records.slice(0, 5), { type: '(unreadable)', line: 6 }], '/j.jsonl');
    expect(damaged?.chunks.get(2)).toEqual({ refused: 'items[0] "a b"' });
    // Without the field (an earlier version's record) the chunk is to be sent again, as before.
    const { refused: _, ...plain } = refusal;
    expect(rebuild([...records.slice(0, 4), plain], '/j.jsonl')?.chunks.get(2)).toEqual({});
  });

  it("a lost record marks its chunk's task lost (still its task, never sent again); another task of the chunk is not", () => {
    const created = (chunk: number, task: number) => ({ type: 'created', chunk, task, cost: 1, how: 'created' });
    const lost = (chunk: number, task: number) => ({ type: 'lost', chunk, task, created_at: '2025-01-15T13:00:00Z' });
    const records: unknown[] = [jobRecord(3), send(1, []), created(1, 1), send(2, []), created(2, 2)];
    records.push(send(3, []), created(3, 3), { type: 'done', tasks: 3, items: 3, cost: 3 });
    records.push(lost(1, 1), lost(2, 9), lost(3, 3), { type: 'done', tasks: 3, items: 3, cost: 3 });
    const state = rebuild([...records, { type: 'reconciled', chunk: 3, task: 4, cost: 1, by: 'user' }], '/j.jsonl');
    expect(state?.done).toBe(true);
    expect(state?.totals).toEqual({ tasks: 3, items: 3, cost: 3 });
    expect(state?.chunks.get(1)?.task?.id).toBe(1);
    // Chunk 2's record names another task than its own; chunk 3 was given task 4 after.
    expect(state && lostChunks(state)).toEqual([1]);
    // A lost record of a chunk the journal has no task for makes no chunk.
    expect(rebuild([jobRecord(3), lost(2, 2)], '/j.jsonl')?.chunks.size).toBe(0);
  });

  it("a found record undoes its chunk's lost (the same task back under its id); a later lost marks it again", () => {
    const created = (chunk: number, task: number) => ({ type: 'created', chunk, task, cost: 1, how: 'created' });
    const lost = (chunk: number, task: number) => ({ type: 'lost', chunk, task, created_at: '2025-01-15T13:00:00Z' });
    const found = (chunk: number, task: number) => ({ type: 'found', chunk, task });
    const records: unknown[] = [jobRecord(2), send(1, []), created(1, 1), send(2, []), created(2, 2)];
    records.push({ type: 'done', tasks: 2, items: 2, cost: 2 }, lost(1, 1), lost(2, 2));
    records.push({ type: 'done', tasks: 2, items: 2, cost: 2, lost: 2 });
    const lostState = rebuild(records, '/j.jsonl');
    expect(lostState && lostChunks(lostState)).toEqual([1, 2]);
    // The `done`'s count is for a glance at the last line; the totals stay the job's.
    expect(lostState?.totals).toEqual({ tasks: 2, items: 2, cost: 2 });
    // Found: only the task it names (chunk 2's own is 2, not 9).
    const back = [...records, found(1, 1), found(2, 9), { type: 'done', tasks: 2, items: 2, cost: 2, lost: 1 }];
    const state = rebuild(back, '/j.jsonl');
    expect(state && lostChunks(state)).toEqual([2]);
    expect(state?.damaged).toEqual([]);
    const again = rebuild([...back, lost(1, 1)], '/j.jsonl');
    expect(again && lostChunks(again)).toEqual([1, 2]);
  });

  it('a refused chunk sent again (an older version continued the journal) is no longer refused', () => {
    const refusal = { type: 'reconciled', chunk: 2, task: null, cost: 0, by: 'answer', refused: 'items[0] "a b"' };
    const records: unknown[] = [jobRecord(3), send(2, []), refusal, send(2, [])];
    const inDoubt = rebuild(records, '/j.jsonl');
    expect(inDoubt?.chunks.get(2)).not.toHaveProperty('refused');
    expect(jobChunks(inDoubt!)[1]).toMatchObject({ chunk: 2, sent: expect.anything() });
    expect(jobChunks(inDoubt!)[1]).not.toHaveProperty('refused');
    const created = rebuild([...records, { type: 'created', chunk: 2, task: 9, cost: 1, how: 'created' }], '/j.jsonl');
    expect(created?.chunks.get(2)).toMatchObject({ task: { id: 9, cost: 1 } });
    expect(created?.chunks.get(2)).not.toHaveProperty('refused');
    const found = { type: 'reconciled', chunk: 2, task: 9, cost: 1, by: 'scan' };
    expect(rebuild([jobRecord(3), send(2, []), refusal, found], '/j.jsonl')?.chunks.get(2)).not.toHaveProperty(
      'refused',
    );
  });

  it("a chunk's `covers` (other jobs' chunks handed to it, on its send or its reused task) are the job's tookOver, each once; without them, none", () => {
    const covers = [{ job: 'j-0000000aaaaa', chunk: 2 }];
    const records: unknown[] = [
      jobRecord(3),
      { ...send(1, []), covers },
      { type: 'created', chunk: 1, task: 7, cost: 1, how: 'created' },
      { ...send(2, []), covers },
      { type: 'created', chunk: 2, task: 8, cost: 1, how: 'created' },
      { type: 'created', chunk: 3, task: 9, cost: 1, how: 'reused', covers: [{ job: 'j-0000000bbbbb', chunk: 1 }] },
    ];
    expect(rebuild(records, '/j.jsonl')?.tookOver).toEqual([...covers, { job: 'j-0000000bbbbb', chunk: 1 }]);
    const fold = new JobFold('/j.jsonl', { counts: true });
    for (const record of records) fold.add(record);
    expect(fold.end()?.tookOver).toHaveLength(2);
    expect(rebuild([jobRecord(1), send(1, [])], '/j.jsonl')?.tookOver).toBeUndefined();
  });

  it('a damaged line in a 65,000-chunk journal: the chunk it may have sent is found, never a stack overflow', () => {
    const records: unknown[] = [jobRecord(CHUNKS + 1)];
    for (let chunk = 1; chunk <= CHUNKS; chunk++) {
      records.push(send(chunk, []));
      records.push({ type: 'created', chunk, task: chunk, cost: 1, how: 'created' });
    }
    records.push({ type: '(unreadable)', line: records.length + 1 });
    const state = rebuild(records, '/j.jsonl');
    // The damaged last line may have been the send of chunk 65,001: it is in doubt, to settle after the latest send.
    expect(state?.chunks.get(CHUNKS + 1)?.send).toMatchObject({
      sent_at: T0,
      settle_after: T0 + CHUNKS + 1,
    });
    expect(state?.chunks.get(CHUNKS + 1)?.task).toBeUndefined();
  });

  it("a send's 100 earlier task ids are held while its chunk has no task; after, only whether that task was one", () => {
    const chunks = 2000;
    const records: unknown[] = [jobRecord(chunks)];
    for (let chunk = 1; chunk <= chunks; chunk++) {
      records.push(send(chunk, seenBefore(chunk)));
      // The last chunk stays in doubt: the scan that settles it reads the whole list.
      if (chunk < chunks) records.push({ type: 'created', chunk, task: 1000 + chunk, cost: 1, how: 'created' });
    }
    const state = rebuild(records, '/j.jsonl');
    // 199,900 ids were read; one per even chunk with a task is kept, and the whole list of the chunk in doubt.
    expect(listed(state)).toBe((chunks - 2) / 2 + 100);
    expect(state?.chunks.get(chunks)?.send?.before).toEqual(seenBefore(chunks));
    // What the `--job` commands and the proof of a rotated key ask of it is answered as from the whole list.
    const asked = jobChunks(state!);
    expect(asked[1]?.sent?.before).toEqual([1002]);
    expect(asked[2]?.sent?.before).toEqual([]);
  });

  it('a chunk given another task after its list was cut (--adopt over a task) gets its whole list back', () => {
    const records: unknown[] = [jobRecord(2)];
    records.push(send(1, [5, 6, 7]), { type: 'created', chunk: 1, task: 9, cost: 1, how: 'created' });
    records.push(send(2, [5, 6, 7]), { type: 'created', chunk: 2, task: 8, cost: 1, how: 'created' });
    // Task 9 did not hold chunk 1's items: the user gave it task 6, one the send had seen before it.
    records.push({ type: 'reconciled', chunk: 1, task: 6, cost: 1, by: 'user' });
    const state = rebuild(records, '/j.jsonl')!;
    expect(state.chunks.get(1)?.send?.before).toEqual([5, 6, 7]);
    expect(state.chunks.get(1)?.task?.id).toBe(6);
    expect(jobChunks(state)[0]?.sent?.before).toEqual([6]);
    expect(jobChunks(state)[1]?.sent?.before).toEqual([]);
  });
});

describe('resume of a large journal', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('folds each record once as it is read, and the state it builds keeps no list of the sends of chunks done', async () => {
    const dir = tempDir();
    const chunks = 100;
    const account = accountKey(BASE_URL, API_KEY);
    const inputs = [{ kind: 'file', path: join(dir, 'items.txt'), format: 'lines', size: 1, sha256: 'x' }];
    const lines: object[] = [
      jobRecord(chunks, { base_url: BASE_URL, account, inputs, service: 'domain_check_availability' }),
    ];
    for (let chunk = 1; chunk <= chunks; chunk++) {
      lines.push(send(chunk, seenBefore(chunk)));
      if (chunk < chunks) lines.push({ type: 'created', chunk, task: 1000 + chunk, cost: 1, how: 'created' });
    }
    const path = join(dir, 'job.jsonl');
    writeFileSync(path, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const added = vi.spyOn(JobFold.prototype, 'add');
    const ended = vi.spyOn(JobFold.prototype, 'end');
    // Its input is gone: resume stops at that check, after reading the journal and before any request.
    const result = await runTaskctl(['resume', path], { api: mockApi(), home: dir });
    expect(result.stderr).toContain('is missing');
    expect(result.code).toBe(2);
    expect(added).toHaveBeenCalledTimes(lines.length);
    expect(ended).toHaveBeenCalledTimes(1);
    const state = ended.mock.results[0]?.value as JobState;
    expect(state.chunks.size).toBe(chunks);
    // 9,900 ids in the journal; held: one per even chunk done, and the list of the chunk in doubt.
    expect(listed(state)).toBe((chunks - 2) / 2 + 100);
  });
});

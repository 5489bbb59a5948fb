/** core/job/journaled-job.ts: a journaled job's chunks in order, checked against the current server and account. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ApiClient } from '../../../../src/api/client.js';
import type { Task } from '../../../../src/api/schemas.js';
import type { Capabilities } from '../../../../src/core/capabilities.js';
import { jobTasks, readJob, requireComplete, warnIfIncomplete } from '../../../../src/core/job/journaled-job.js';
import { NotFoundError } from '../../../../src/errors.js';
import { accountKey } from '../../../../src/store/cache.js';
import { tryLock } from '../../../../src/store/lock-file.js';
import { API_KEY, BASE_URL } from '../../commands/run-in-process.js';
import { task } from '../../../hardening/scripted-server.js';
import { SERVICE, tempDir, writeJournal } from './fixture.js';

/** What readJob uses: the client's base URL, the cache's account, and a state directory of its own (no key aliases). */
function context(baseUrl = BASE_URL, account = accountKey(BASE_URL, API_KEY)): Capabilities {
  const env = { TASKCTL_STATE_DIR: tempDir() };
  return { api: () => Promise.resolve({ baseUrl }), cache: { account }, env } as unknown as Capabilities;
}

function fakeApi(tasks: Record<number, object>): ApiClient & { reads: number[] } {
  const reads: number[] = [];
  return {
    reads,
    getTask: (id: number) => {
      reads.push(id);
      const found = tasks[id];
      return found ? Promise.resolve(found as Task) : Promise.reject(new NotFoundError(`task ${id} not found`));
    },
  } as unknown as ApiClient & { reads: number[] };
}

describe('readJob', () => {
  it('gives every chunk in order with its task and item count', async () => {
    const path = writeJournal({ items: 25, chunkSize: 10, tasks: [7, 5, 9] });
    const job = await readJob(context(), path);
    // With each chunk's send record: when it left and what existed before (checked against its task).
    const sent = { at: 1, before: [], answered: true, judged: true };
    expect(job.service).toBe(SERVICE);
    expect(job.chunks).toEqual([
      { chunk: 1, items: 10, task: 7, sent },
      { chunk: 2, items: 10, task: 5, sent },
      { chunk: 3, items: 5, task: 9, sent },
    ]);
    expect(job.unfinished).toEqual([]);
    expect(() => requireComplete(job, 'wait --job')).not.toThrow();
  });

  it('a task reused (--reuse-window) existed before its send: it is not judged by the send', async () => {
    const path = writeJournal({ items: 10, chunkSize: 10, tasks: [7] });
    writeFileSync(path, readFileSync(path, 'utf8').replace('"how":"answered"', '"how":"reused"'));
    const job = await readJob(context(), path);
    expect(job.chunks).toEqual([{ chunk: 1, items: 10, task: 7 }]);
  });

  it('reports unfinished chunks, and wait/retry refuse them pointing to resume --wait', async () => {
    const path = writeJournal({ items: 30, chunkSize: 10, tasks: [7, undefined] });
    const job = await readJob(context(), path);
    expect(job.created.map((chunk) => chunk.task)).toEqual([7]);
    expect(job.unfinished).toEqual([2, 3]);
    expect(() => requireComplete(job, 'wait --job')).toThrow(
      expect.objectContaining({ exitCode: 2, hint: `Finish it first: taskctl resume ${path} --wait` }),
    );
  });

  it('unfinished while a live run holds it: it is being created, so the words name that run, not resume', async () => {
    const path = writeJournal({ items: 30, chunkSize: 10, tasks: [7, undefined] });
    // The lock beside the journal, as a create or resume still sending it holds it (this test's process: alive).
    const lock = tryLock(`${path}.lock`);
    if (!('release' in lock)) throw new Error('lock not taken');
    onTestFinished(() => lock.release());
    const job = await readJob(context(), path);
    const running = `another taskctl (process ${process.pid} on this machine) is still creating it`;
    expect(() => requireComplete(job, 'wait --job')).toThrow(
      expect.objectContaining({
        exitCode: 2,
        message: `the job in ${path} is incomplete: 2 chunks of 3 (2, 3) have no task recorded yet, and ${running}; wait --job needs every task`,
        hint: 'Wait for that run to end, then run this again.',
      }),
    );
    const warnings: string[] = [];
    warnIfIncomplete(
      { printer: { warn: (text: string) => warnings.push(text) } } as never,
      job,
      (id) => `taskctl show --job ${id}`,
    );
    expect(warnings).toEqual([
      `the job in ${path} is incomplete: 2 chunks of 3 (2, 3) have no task recorded yet, and ${running}; using its 1 task (run this again once that run has ended)`,
    ]);
  });

  it('is exit 2 for another base URL or account, and for no journal at all', async () => {
    const path = writeJournal({ items: 1, chunkSize: 1, tasks: [7] });
    await expect(readJob(context('https://other.test/api/v1'), path)).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/another service: the base URL/),
    });
    await expect(readJob(context(BASE_URL, 'someone-else'), path)).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/another account: the API key differs/),
    });
    await expect(readJob(context(), join(tempDir(), 'none.jsonl'))).rejects.toMatchObject({ exitCode: 2 });
    const empty = join(tempDir(), 'empty.jsonl');
    writeFileSync(empty, '');
    await expect(readJob(context(), empty)).rejects.toMatchObject({ exitCode: 2 });
  });
});

async function drain<T>(values: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const value of values) all.push(value);
  return all;
}

describe('jobTasks', () => {
  it('reads each task once, in chunk order', async () => {
    const path = writeJournal({ items: 3, chunkSize: 2, tasks: [7, 5] });
    const job = await readJob(context(), path);
    const api = fakeApi({ 7: task(7, { total_items: 2 }), 5: task(5, { total_items: 1 }) });
    const seen: number[] = [];
    for await (const { chunk, task: read } of jobTasks(api, job)) seen.push(chunk.chunk, read.id);
    expect(seen).toEqual([1, 7, 2, 5]);
    expect(api.reads).toEqual([7, 5]);
  });

  it('is exit 8 naming the chunk when a task does not match it (service, item count)', async () => {
    const path = writeJournal({ items: 4, chunkSize: 2, tasks: [7, 5] });
    const job = await readJob(context(), path);
    const wrongCount = fakeApi({ 7: task(7, { total_items: 2 }), 5: task(5, { total_items: 3 }) });
    const read = (api: ApiClient) => drain(jobTasks(api, job));
    await expect(read(wrongCount)).rejects.toMatchObject({
      exitCode: 8,
      message: expect.stringMatching(/^chunk 2 of .* does not match task 5: it has 3 items, not 2/),
    });
    const wrongService = fakeApi({ 7: task(7, { total_items: 2, service: 'whois' }) });
    await expect(read(wrongService)).rejects.toMatchObject({
      exitCode: 8,
      message: expect.stringMatching(/^chunk 1 .*it is a whois task/),
    });
  });

  it('a task the service no longer has (not found) is its chunk lost: exit 8 naming the chunk and the resume that records it', async () => {
    const path = writeJournal({ items: 2, chunkSize: 1, tasks: [7, 5] });
    const job = await readJob(context(), path);
    const api = fakeApi({ 7: task(7) });
    const read = () => drain(jobTasks(api, job));
    await expect(read()).rejects.toMatchObject({
      exitCode: 8,
      message: expect.stringMatching(
        /^chunk 2 of .*: its task 5 is not on the service any more \(task 5 was not found\)$/,
      ),
      hint: expect.stringMatching(/To record it in the job .*: taskctl resume .* --wait$/),
    });
  });
});

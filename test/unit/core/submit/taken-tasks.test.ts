/**
 * core/submit/taken-tasks.ts: the tasks of a job of the same work a create or retry took, read ahead as `show --job`
 * reads a job and handed on in chunk order; one the service no longer has (404) left out, any other failure thrown at
 * its turn.
 */
import { expect, it } from 'vitest';
import type { ApiClient } from '../../../../src/api/client.js';
import type { Task } from '../../../../src/api/schemas.js';
import { readTaken } from '../../../../src/core/submit/taken-tasks.js';
import { CliError, ExitCode, NotFoundError } from '../../../../src/errors.js';
import { settle } from '../../../clock.js';

const task = (id: number): Task => ({
  id,
  service: 's',
  status: 'completed',
  total_items: 1,
  cost: 1,
  created_at: '2025-01-15T12:00:00Z',
});

/** An API whose task reads the test answers (or fails) when it chooses, with no rate budget stated. */
function fakeApi() {
  const pending = new Map<number, { resolve: (task: Task) => void; reject: (error: Error) => void }>();
  const api = {
    getTask: (id: number) => new Promise<Task>((resolve, reject) => pending.set(id, { resolve, reject })),
    rateLimiter: { snapshot: () => undefined },
  } as unknown as ApiClient;
  const answer = async (id: number, error?: Error) => {
    const read = pending.get(id);
    if (read === undefined) throw new Error(`task ${id} was not read`);
    pending.delete(id);
    if (error) read.reject(error);
    else read.resolve(task(id));
    await settle();
  };
  return { api, pending, answer };
}

const taken = [1, 2, 3, 4, 5].map((id) => ({ chunk: id, id, items: 1 }));

/** Takes every task as it is handed on: their ids in `got`, `done` when the reading ends. */
function collect(api: ApiClient) {
  const got: number[] = [];
  const done = (async () => {
    for await (const read of readTaken(api, taken)) got.push(read.task.id);
  })();
  return { got, done };
}

it('reads ahead once the first answer came, hands each on in chunk order, and leaves out a task gone (404)', async () => {
  const { api, pending, answer } = fakeApi();
  const { got, done } = collect(api);
  await settle();
  expect([...pending.keys()]).toEqual([1]); // the first alone: no size known yet
  await answer(1);
  expect(got).toEqual([1]);
  expect([...pending.keys()]).toEqual([2, 3, 4, 5]);
  await answer(3, new NotFoundError('task 3 not found'));
  await answer(4);
  expect(got).toEqual([1]); // 2 comes first
  await answer(2);
  expect(got).toEqual([1, 2, 4]);
  await answer(5);
  await done;
  expect(got).toEqual([1, 2, 4, 5]);
});

it('another failure is thrown at its turn, after the tasks before it; nothing is read after it', async () => {
  const { api, pending, answer } = fakeApi();
  const { got, done } = collect(api);
  const failed = done.then(
    () => undefined,
    (error: unknown) => error,
  );
  await settle();
  await answer(1);
  await answer(3, new CliError('server error', ExitCode.unavailable));
  await answer(2);
  expect(await failed).toMatchObject({ message: 'server error', exitCode: ExitCode.unavailable });
  expect(got).toEqual([1, 2]);
  expect([...pending.keys()]).toEqual([4, 5]); // under way before the failure, never handed on
});

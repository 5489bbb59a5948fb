/** core/job/read-ahead.ts: a few reads at once, answers handed on in order, within a count and a byte budget. */
import { describe, expect, it } from 'vitest';
import { answerBytes, readAhead, type ReadAheadLimits } from '../../../../src/core/job/read-ahead.js';
import type { Task } from '../../../../src/api/schemas.js';
import { settle } from '../../../clock.js';

/** A unit of work: its name, how many items its answer has, and how many bytes that answer takes. */
interface Unit {
  name: string;
  items: number;
  bytes: number;
}

/** Reads the test answers when it chooses; it sees what is in flight and what is held. */
function reader(units: readonly Unit[], limits: ReadAheadLimits, budgetAllows?: (reading: number) => boolean) {
  const pending = new Map<string, { resolve: (unit: Unit) => void; reject: (error: Error) => void }>();
  const started: string[] = [];
  const read = (unit: Unit) =>
    new Promise<Unit>((resolve, reject) => {
      started.push(unit.name);
      pending.set(unit.name, { resolve, reject });
    });
  const sizes = { items: (unit: Unit) => unit.items, bytes: (answer: Unit) => answer.bytes };
  const answers = readAhead(units, read, sizes, limits, budgetAllows);
  const answer = (name: string, error?: Error) => {
    const unit = units.find((u) => u.name === name);
    const waiting = pending.get(name);
    if (unit === undefined || waiting === undefined) throw new Error(`${name} was not read`);
    pending.delete(name);
    if (error) waiting.reject(error);
    else waiting.resolve(unit);
  };
  /** Takes every answer as it is handed on: their names in `got`, `done` when the reading ends. */
  const collect = () => {
    const got: string[] = [];
    const done = (async () => {
      for await (const { unit: u } of answers) got.push(u.name);
    })();
    return { got, done };
  };
  return { answers, answer, started, pending, collect };
}

const unit = (name: string, items = 10, bytes = 100): Unit => ({ name, items, bytes });

describe('readAhead', () => {
  it('hands answers on in order whatever order they arrive in, with at most `tasks` reads at once', async () => {
    const units = ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => unit(name));
    const { answers, answer, started, pending } = reader(units, { tasks: 3, bytes: 1_000_000 });
    const got: string[] = [];
    const consume = (async () => {
      for await (const { unit: u, answer: a } of answers) {
        expect(a).toBe(u);
        got.push(u.name);
      }
    })();
    await settle();
    // The first read goes alone: no size is known before an answer.
    expect(started).toEqual(['a']);
    answer('a');
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    let most = 0;
    while (pending.size > 0) {
      most = Math.max(most, pending.size);
      answer([...pending.keys()].at(-1) ?? ''); // the latest first: answers arrive in reverse
      await settle();
    }
    await consume;
    expect(got).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(most).toBe(3);
  });

  it('keeps the bytes read and not handed on within the budget; an answer larger than the budget is read alone', async () => {
    // 10 bytes an item once measured: three 30-byte answers fit 100 bytes, a 4th does not.
    const units = [unit('a', 3, 30), unit('b', 3, 30), unit('c', 3, 30), unit('d', 3, 30), unit('big', 3, 500)];
    units.push(unit('after', 3, 30), unit('last', 3, 30));
    const { answers, answer, started, pending } = reader(units, { tasks: 10, bytes: 100 });
    const iterator = answers[Symbol.asyncIterator]();
    const first = iterator.next();
    await settle();
    answer('a');
    expect((await first).value?.unit.name).toBe('a');
    await settle();
    // `a` is still held (the caller has not asked for the next one): with it, two more fit.
    expect(started).toEqual(['a', 'b', 'c']);
    const second = iterator.next(); // done with `a`: its 30 bytes are free
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    answer('b');
    answer('c');
    answer('d');
    expect((await second).value?.unit.name).toBe('b');
    expect((await iterator.next()).value?.unit.name).toBe('c');
    // `big` is estimated at 30 like the others and started beside `d`; measured at 500 once it comes...
    await settle();
    expect(started.at(-1)).toBe('big');
    answer('big');
    await settle();
    // ...so nothing more is read while it is held, over the budget as it is.
    expect(started.at(-1)).toBe('big');
    expect((await iterator.next()).value?.unit.name).toBe('d');
    await settle();
    expect(started.at(-1)).toBe('big');
    expect((await iterator.next()).value?.unit.name).toBe('big');
    await settle();
    expect(started.at(-1)).toBe('big');
    // Done with `big`: the next is read, alone again (its estimate is now 500 bytes: the most an item took, 3 times).
    const next = iterator.next();
    await settle();
    expect(started.at(-1)).toBe('after');
    expect([...pending.keys()]).toEqual(['after']);
    answer('after');
    expect((await next).value?.unit.name).toBe('after');
    const final = iterator.next();
    await settle();
    answer('last');
    expect((await final).value?.unit.name).toBe('last');
    expect((await iterator.next()).done).toBe(true);
  });

  it('a failed read is thrown at its turn, after every answer before it; nothing is read after it', async () => {
    const units = ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => unit(name));
    const { answer, started, collect } = reader(units, { tasks: 3, bytes: 1_000_000 });
    const { got, done: consume } = collect();
    await settle();
    answer('a');
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    answer('c', new Error('c is gone'));
    await settle();
    answer('d');
    await settle();
    expect(got).toEqual(['a']);
    answer('b');
    await expect(consume).rejects.toThrow('c is gone');
    expect(got).toEqual(['a', 'b']);
    expect(started).toEqual(['a', 'b', 'c', 'd']);
  });

  it('reads beyond the current one only while the rate budget has a request left for them', async () => {
    const units = ['a', 'b', 'c', 'd'].map((name) => unit(name));
    let left = 2;
    const { answer, started, collect } = reader(units, { tasks: 4, bytes: 1_000_000 }, (reading) => left > reading);
    const { got, done: consume } = collect();
    await settle();
    answer('a');
    await settle();
    // Two left: `b` is read (one under way), `c` would need a third.
    expect(started).toEqual(['a', 'b', 'c']);
    left = 0;
    answer('b');
    answer('c');
    await settle();
    // Nothing left: only the read whose turn it is goes (and waits in the limiter if it must).
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    expect(got).toEqual(['a', 'b', 'c']);
    answer('d');
    await consume;
    expect(got).toEqual(['a', 'b', 'c', 'd']);
  });

  it('one at a time (tasks: 1) reads each only after the one before was handed on', async () => {
    const units = ['a', 'b'].map((name) => unit(name));
    const { answers, answer, started } = reader(units, { tasks: 1, bytes: 0 });
    const iterator = answers[Symbol.asyncIterator]();
    const first = iterator.next();
    await settle();
    answer('a');
    await first;
    await settle();
    expect(started).toEqual(['a']);
    const second = iterator.next();
    await settle();
    expect(started).toEqual(['a', 'b']);
    answer('b');
    await second;
  });
});

describe('answerBytes', () => {
  it('grows with the items and their text, about as their JSON does', () => {
    const items = (n: number, text: string) =>
      Array.from({ length: n }, (_, i) => ({
        target: `t${i}.com`,
        status: 'completed',
        data: { note: text },
        error: null,
      }));
    const small = { id: 1, items: items(100, 'x') } as unknown as Task;
    const large = { id: 1, items: items(100, 'x'.repeat(1000)) } as unknown as Task;
    const json = (task: Task) => JSON.stringify(task.items).length;
    for (const task of [small, large]) {
      expect(answerBytes(task)).toBeGreaterThan(json(task) * 0.8);
      expect(answerBytes(task)).toBeLessThan(json(task) * 1.5 + 256);
    }
  });
});

import { describe, expect, it } from 'vitest';
import {
  disagreeingCountsWarner,
  ENDED_TASK_STATUSES,
  isTerminal,
  itemCounts,
  itemOutcome,
  statusWord,
  taskPhase,
  taskSucceeded,
  taskTone,
  taskVerdict,
  sameCreation,
  stateEnteredAt,
} from '../../../src/lib/task-state.js';

const task = (fields: Partial<Parameters<typeof taskPhase>[0]> & { status: string }) => ({ total_items: 2, ...fields });

describe('task state rules', () => {
  it('classifies the four statuses docs/openapi.json shows, ended words and unknown statuses by their finish timestamp', () => {
    expect(taskPhase(task({ status: 'pending' }))).toBe('active');
    expect(taskPhase(task({ status: 'processing' }))).toBe('active');
    expect(taskPhase(task({ status: 'completed' }))).toBe('completed');
    expect(taskPhase(task({ status: 'failed' }))).toBe('ended');
    for (const word of ['cancelled', 'canceled', 'Expired', 'aborted', 'error', 'rejected', 'timeout']) {
      expect(taskPhase(task({ status: word }))).toBe('ended');
    }
    expect(taskPhase(task({ status: 'paused' }))).toBe('active');
    expect(taskPhase(task({ status: 'archived', completed_at: '2025-01-01T00:00:00Z' }))).toBe('ended');
    expect(isTerminal(task({ status: 'queued' }))).toBe(false);
  });

  it('counts an item as completed only when its status is completed', () => {
    expect(itemOutcome({ status: 'completed' }, true)).toBe('completed');
    for (const status of ['failed', 'error', 'skipped', 'whatever'])
      expect(itemOutcome({ status }, true)).toBe('failed');
    expect(itemOutcome({ status: 'pending' }, false)).toBe('active');
    expect(itemOutcome({ status: 'pending' }, true)).toBe('failed');
    expect(itemOutcome({ status: 'error' }, false)).toBe('failed');
  });

  it('never calls a completed task with an error, skipped or missing item a success', () => {
    const items = (...statuses: string[]) => statuses.map((status) => ({ status }));
    expect(taskSucceeded(task({ status: 'completed', items: items('completed', 'completed') }))).toBe(true);
    expect(taskSucceeded(task({ status: 'completed', items: items('completed', 'error') }))).toBe(false);
    expect(taskSucceeded(task({ status: 'completed', items: items('completed', 'skipped') }))).toBe(false);
    expect(taskSucceeded(task({ status: 'completed', items: items('completed') }))).toBe(false);
    expect(taskSucceeded(task({ status: 'completed' }))).toBe(false);
    expect(taskSucceeded(task({ status: 'completed', completed_items: 2, failed_items: 0 }))).toBe(true);
    expect(taskSucceeded(task({ status: 'completed', completed_items: 1, failed_items: 0 }))).toBe(false);
    expect(taskSucceeded(task({ status: 'cancelled', completed_items: 2 }))).toBe(false);
  });

  it('counts items that did not complete as failed once the task is terminal, or not listed by counts that leave them out', () => {
    expect(itemCounts(task({ status: 'completed', completed_items: 1 }))).toEqual({
      total: 2,
      completed: 1,
      failed: 1,
    });
    expect(itemCounts(task({ status: 'completed', completed_items: 1, failed_items: 0 }))).toEqual({
      total: 2,
      completed: 1,
      failed: 0,
      unlisted: 1,
    });
    expect(itemCounts(task({ status: 'processing', completed_items: 1, failed_items: 0 }))).toEqual({
      total: 2,
      completed: 1,
      failed: 0,
    });
    expect(itemCounts(task({ status: 'processing', items: [{ status: 'completed' }, { status: 'pending' }] }))).toEqual(
      { total: 2, completed: 1, failed: 0 },
    );
    expect(itemCounts(task({ status: 'processing' }))).toEqual({ total: 2, completed: undefined, failed: undefined });
  });

  it('gives every word one meaning: ended, succeeded, tone (timeout and timed_out included)', () => {
    expect(statusWord('completed')).toEqual({ ended: true, succeeded: true, tone: 'success' });
    for (const word of ['failed', 'timeout', 'timed_out', 'Cancelled', 'errored'])
      expect(statusWord(word)).toEqual({ ended: true, succeeded: false, tone: 'failure' });
    expect(statusWord('processing').tone).toBe('working');
    expect(statusWord('queued').tone).toBe('waiting');
    expect(statusWord('paused')).toEqual({ ended: false, succeeded: false, tone: 'plain' });
    expect([...ENDED_TASK_STATUSES]).toEqual(expect.arrayContaining(['timeout', 'timed_out', 'failed']));
    expect(ENDED_TASK_STATUSES.has('completed')).toBe(false);
  });

  it('colours a completed task by its counts: green only with counts that show no failure', () => {
    expect(taskTone(task({ status: 'completed', completed_items: 2, failed_items: 0 }))).toBe('success');
    expect(taskTone(task({ status: 'completed', completed_items: 1, failed_items: 1 }))).toBe('partial');
    // Counts that disagree (all completed, yet one failed) are not a success either.
    expect(taskTone(task({ status: 'completed', completed_items: 2, failed_items: 1 }))).toBe('partial');
    expect(taskSucceeded(task({ status: 'completed', completed_items: 2, failed_items: 1 }))).toBe(false);
    expect(taskTone(task({ status: 'completed' }))).toBe('plain');
    expect(taskTone(task({ status: 'timed_out' }))).toBe('failure');
    expect(taskTone(task({ status: 'archived', completed_at: '2025-01-01T00:00:00Z' }))).toBe('failure');
    expect(taskTone(task({ status: 'pending' }))).toBe('waiting');
    expect(taskVerdict(task({ status: 'completed', completed_items: 1, failed_items: 1 }))).toEqual({
      ended: true,
      succeeded: false,
      tone: 'partial',
    });
    expect(taskVerdict(task({ status: 'processing' }))).toEqual({ ended: false, succeeded: false, tone: 'working' });
  });
});

describe('disagreeingCountsWarner', () => {
  const disagreeing = (id: number) => ({
    id,
    status: 'completed',
    total_items: 1,
    completed_items: 3,
    failed_items: 0,
  });

  it('warns once a task whose counts disagree, never about one whose counts agree', () => {
    const said: string[] = [];
    const note = disagreeingCountsWarner((text) => said.push(text));
    note(disagreeing(7));
    note(disagreeing(7));
    note({ id: 8, status: 'completed', total_items: 3, completed_items: 3, failed_items: 0 });
    expect(said).toEqual([
      "task 7: the service's counts disagree: 3 items counted, but total_items is 1; only its status says when it is finished",
    ]);
  });

  it('with a bound, remembers at most that many tasks: the least recently seen is forgotten first', () => {
    const said: number[] = [];
    const note = disagreeingCountsWarner((text) => said.push(Number(/^task (\d+)/.exec(text)?.[1])), undefined, 2);
    note(disagreeing(1));
    note(disagreeing(2));
    note(disagreeing(1)); // seen again: now the most recent
    note(disagreeing(3)); // a third: task 2 is forgotten
    note(disagreeing(1));
    note(disagreeing(3));
    expect(said).toEqual([1, 2, 3]);
    note(disagreeing(2)); // forgotten, so warned about again (and task 1 forgotten in turn)
    note(disagreeing(3));
    note(disagreeing(1));
    expect(said).toEqual([1, 2, 3, 2, 1]);
  });
});

describe('counts that contradict the items of an ended task', () => {
  const items = (n: number) => Array.from({ length: n }, () => ({ status: 'completed' }));
  // All four items completed, but the service's own counts say 3 failed: success is only what both say.
  const contradicted = {
    id: 1,
    status: 'completed',
    total_items: 4,
    completed_items: 1,
    failed_items: 3,
    items: items(4),
  };

  it('takes the worse reading: 1 completed, 3 failed, no success', () => {
    expect(itemCounts(contradicted)).toEqual({ total: 4, completed: 1, failed: 3 });
    expect(taskSucceeded(contradicted)).toBe(false);
    expect(itemCounts({ ...contradicted, completed_items: 9 })).toEqual({ total: 4, completed: 1, failed: 3 });
    // Still running: the items are the progress, the counts may lag them.
    expect(itemCounts({ ...contradicted, status: 'processing' })).toEqual({ total: 4, completed: 4, failed: 0 });
    // Counts that agree change nothing; a failed_items that covers items not listed is not a contradiction.
    expect(itemCounts({ ...contradicted, completed_items: 4, failed_items: 0 })).toEqual({
      total: 4,
      completed: 4,
      failed: 0,
    });
    const unlisted = { ...contradicted, completed_items: 2, failed_items: 2, items: items(2) };
    expect(itemCounts(unlisted)).toEqual({ total: 4, completed: 2, failed: 2 });
  });

  it('is warned about once per task, naming both readings; agreeing counts are not', () => {
    const warnings: string[] = [];
    const warn = disagreeingCountsWarner((text) => warnings.push(text));
    warn(contradicted);
    warn(contradicted);
    warn({ ...contradicted, id: 2, completed_items: 4, failed_items: 0 });
    warn({ ...contradicted, id: 3, items: items(2), completed_items: 2, failed_items: 2 });
    expect(warnings).toEqual([
      "task 1: the service's counts disagree with its items: completed_items 1, failed_items 3, but its items show 4 completed, 0 failed; taken as 1/4, 3 failed (a success only if both say so)",
    ]);
  });
});

describe('sameCreation', () => {
  it('the same time written to another precision is the same creation; more than the resolution and a second apart is another', () => {
    expect(sameCreation('2026-11-30T03:00:00Z', '2026-11-30T03:00:00.640Z')).toBe(true);
    expect(sameCreation('2026-11-30T03:00:00Z', '2026-11-30T03:00:03Z')).toBe(false);
    expect(sameCreation('2026-11-30T03:00:00Z', '2026-11-30T02:53:00Z')).toBe(false);
    expect(sameCreation('2026-11-30T03:00:00.100Z', '2026-11-30T03:00:01.200Z')).toBe(true);
    expect(sameCreation('2026-11-30T03:00:00.100Z', '2026-11-30T03:00:01.200+01:00')).toBe(false);
  });

  it('whole seconds truncated in one answer and rounded in another (1 s or 2 s apart) are the same creation', () => {
    expect(sameCreation('2026-11-30T03:00:00Z', '2026-11-30T03:00:01Z')).toBe(true);
    expect(sameCreation('2026-11-30T03:00:00.999Z', '2026-11-30T03:00:02Z')).toBe(true);
    expect(sameCreation('2026-11-30T03:00:01Z', '2026-11-30T03:00:00.000Z')).toBe(true);
  });

  it('one instant in Z and in a numeric zone is the same creation', () => {
    expect(sameCreation('2026-11-30T03:00:00Z', '2026-11-30T03:00:00+00:00')).toBe(true);
    expect(sameCreation('2026-11-30T03:00:00.123Z', '2026-11-30T04:00:00.123+01:00')).toBe(true);
    expect(sameCreation('2026-11-30T03:00:00Z', '2026-11-30T04:00:00+0100')).toBe(true);
  });

  it('a time without a zone is no evidence of another task, whatever the local zone (taken as the same)', () => {
    expect(sameCreation('2026-11-30T03:00:00Z', '2026-11-30T03:00:00')).toBe(true);
    expect(sameCreation('2026-11-30T03:00:00Z', '2026-11-30T09:00:00')).toBe(true);
    expect(sameCreation('2026-11-30T03:00:00', '2026-11-29T03:00:00')).toBe(true);
  });

  it('a time that does not parse is no evidence of another task: taken as the same (the answer is tolerated)', () => {
    expect(sameCreation('yesterday', 'about noon')).toBe(true);
    expect(sameCreation('2026-11-30T03:00:00Z', 'about noon')).toBe(true);
  });
});

describe('stateEnteredAt', () => {
  const at = (text: string) => Date.parse(text);
  const base = { total_items: 1, created_at: '2026-01-01T10:00:00Z', started_at: '2026-01-01T10:01:00Z' };
  it('is the field of the state the task is in, on the service clock', () => {
    expect(stateEnteredAt({ ...base, status: 'pending' }, 0)).toBe(at(base.created_at));
    expect(stateEnteredAt({ ...base, status: 'processing' }, 0)).toBe(at(base.started_at));
    const completed_at = '2026-01-01T10:02:00Z';
    expect(stateEnteredAt({ ...base, status: 'completed', completed_at }, 0)).toBe(at(completed_at));
    const failed_at = '2026-01-01T10:03:00+00:00';
    expect(stateEnteredAt({ ...base, status: 'failed', failed_at, completed_at }, 0)).toBe(at(failed_at));
    expect(stateEnteredAt({ ...base, status: 'cancelled', completed_at }, 0)).toBe(at(completed_at));
  });
  it('is the fallback when that field is missing or not a timestamp', () => {
    expect(stateEnteredAt({ ...base, status: 'completed' }, 42)).toBe(42);
    expect(stateEnteredAt({ ...base, status: 'processing', started_at: 'soon' }, 42)).toBe(42);
    // A time without a zone is not read as this machine's local time (hours off): it is no timestamp.
    expect(stateEnteredAt({ ...base, status: 'completed', completed_at: '2026-01-01T10:02:00' }, 42)).toBe(42);
  });
});

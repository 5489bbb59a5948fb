import { describe, expect, it } from 'vitest';
import type { Task } from '../../../../src/api/schemas.js';
import { exitCodeFlags, resumeHint, waitExitCode } from '../../../../src/core/follow/outcome.js';
import { waitingFlags } from '../../../../src/core/submit/resume-command.js';
import { unknownStatusWarner } from '../../../../src/lib/task-state.js';

const base = { service: 'domain_check_availability', cost: 2, created_at: '2025-01-01T00:00:00Z' };
const items = (...statuses: string[]) => statuses.map((status, i) => ({ target: `d${i}.com`, status, data: null }));
const task = (fields: Partial<Task> & { status: string }): Task => ({ id: 1, total_items: 2, ...base, ...fields });
const done = { reason: 'done' } as const;

describe('waitExitCode: success is only what was seen', () => {
  it('is 0 only when the task completed and every item was seen completed', () => {
    expect(waitExitCode([task({ status: 'completed', items: items('completed', 'completed') })], done)).toBe(0);
    expect(waitExitCode([task({ status: 'completed', completed_items: 2, failed_items: 0 })], done)).toBe(0);
  });

  it('is 11 for a completed task whose item has status error, skipped or anything else', () => {
    for (const other of ['error', 'skipped', 'failed', 'whatever', 'pending']) {
      const tasks = [task({ status: 'completed', items: items('completed', other) })];
      expect(waitExitCode(tasks, done), other).toBe(11);
      expect(waitExitCode(tasks, { ...done, allowItemFailures: true }), other).toBe(0);
    }
  });

  it('is 11 for a completed task with items missing, or no evidence at all', () => {
    expect(waitExitCode([task({ status: 'completed', items: items('completed') })], done)).toBe(11);
    expect(waitExitCode([task({ status: 'completed', items: [] })], done)).toBe(11);
    // Counts that leave items out (a skipped item in neither count) are not the whole result.
    expect(waitExitCode([task({ status: 'completed', completed_items: 1, failed_items: 0 })], done)).toBe(11);
    expect(waitExitCode([task({ status: 'completed' })], done)).toBe(11);
    expect(waitExitCode([task({ status: 'completed' })], { ...done, allowItemFailures: true })).toBe(0);
  });

  it('is 10 for every ended task: failed, the common terminal words, and unknown statuses with a finish time', () => {
    for (const status of ['failed', 'cancelled', 'canceled', 'expired', 'aborted', 'error', 'rejected', 'timeout']) {
      expect(waitExitCode([task({ status, completed_items: 2 })], done), status).toBe(10);
      expect(waitExitCode([task({ status })], { ...done, allowItemFailures: true }), status).toBe(10);
    }
    expect(waitExitCode([task({ status: 'archived', completed_at: '2025-01-01T00:01:00Z' })], done)).toBe(10);
    expect(waitExitCode([task({ status: 'gone', failed_at: '2025-01-01T00:01:00Z' })], done)).toBe(10);
    // 10 wins over 11 when both happen in one wait.
    const mixed = [
      task({ status: 'completed', items: items('completed', 'error') }),
      task({ id: 2, status: 'expired' }),
    ];
    expect(waitExitCode(mixed, done)).toBe(10);
  });

  it('never calls an unknown status success: without a finish time the task is still running', () => {
    // With --any / --until the wait may end while such a task runs; it is no failure, and no completed task either.
    expect(waitExitCode([task({ status: 'queued' })], done)).toBe(0);
    expect(waitExitCode([task({ status: 'queued' })], { reason: 'timeout' })).toBe(124);
    expect(waitExitCode([task({ status: 'cancelled' })], { reason: 'interrupted' })).toBe(130);
  });
});

describe('unknownStatusWarner', () => {
  it('warns once per unknown status per run, never for the four docs/openapi.json shows, and shows the status as it came', () => {
    const warnings: string[] = [];
    const warn = unknownStatusWarner((message) => warnings.push(message));
    for (const status of ['pending', 'processing', 'completed', 'failed', 'Queued', 'Queued', 'on_hold', 'queued']) {
      warn(task({ status }));
    }
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toContain('"Queued"');
    expect(warnings[1]).toContain('"on_hold"');
    expect(warnings[0]).toMatch(/task 1/);
    expect(warnings[0]).toMatch(/still running/);
  });

  it('says an unknown status with a finish time ended the task', () => {
    const warnings: string[] = [];
    const warn = unknownStatusWarner((message) => warnings.push(message));
    warn(task({ status: 'archived', completed_at: '2025-01-01T00:01:00Z' }));
    warn(task({ status: 'cancelled' }));
    expect(warnings[0]).toMatch(/"archived".*ended/);
    expect(warnings[1]).toMatch(/"cancelled".*ended/);
  });

  it('says a differently written completed is read as completed, not as still running', () => {
    const warnings: string[] = [];
    unknownStatusWarner((message) => warnings.push(message))(
      task({ status: 'COMPLETED', completed_at: '2025-01-01T00:01:00Z' }),
    );
    expect(warnings).toEqual([
      'task 1 has status "COMPLETED", which the API does not document; taskctl reads it as completed',
    ]);
  });
});

describe('exitCodeFlags: the flags every hint that waits again repeats', () => {
  it('gives each flag that decides the exit code, in one order for `taskctl wait` and a `--wait` hint alike', () => {
    const options = { any: true, until: 'done', allowItemFailures: true };
    expect(exitCodeFlags(options)).toEqual(['--allow-item-failures', '--until done', '--any']);
    expect(resumeHint([7], exitCodeFlags(options))).toBe('taskctl wait 7 --allow-item-failures --until done --any');
    expect(`taskctl resume J${waitingFlags(options)}`).toBe(
      'taskctl resume J --wait --allow-item-failures --until done --any',
    );
    expect(exitCodeFlags({ any: false, allowItemFailures: false })).toEqual([]);
  });
});

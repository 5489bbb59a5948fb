/**
 * The end of a wait on several tasks completed with failed items: one warning for them all, with the one command that
 * lists every failed item, never a warning a task (twelve tasks made thirty-six lines at 40 columns under a table that
 * had just shown them).
 */
import { describe, expect, it } from 'vitest';
import { sandboxRun } from '../run-in-process.js';

const S = 'domain_check_availability';

describe('wait: tasks completed with failed items', () => {
  it('several tasks: one warning, one command for all their failed items (exit 11)', async () => {
    const { run } = await sandboxRun(0);
    const ids: number[] = [];
    for (const items of [['fail-a.com', 'a.com'], ['fail-b.com', 'fail-c.com', 'b.com'], ['fail-d.com']])
      ids.push(Number((await run(['create', S, ...items, '-q', '-y'])).stdout));
    const result = await run(['wait', ...ids.map(String)]);
    expect(result.code).toBe(11);
    const warnings = result.stderr.split('\n').filter((line) => line.startsWith('warning:'));
    expect(warnings).toEqual([
      `warning: 3 tasks completed with 4 failed items: taskctl show ${ids.join(' ')} --items-status failed`,
    ]);
    // The command, as printed, lists exactly those items.
    const shown = await run(['show', ...ids.map(String), '--items-status', 'failed', '-o', 'tsv']);
    expect(shown.code).toBe(0);
    expect(shown.stdout.trim().split('\n')).toHaveLength(4);
  });

  it("a job's tasks: the job's own command", async () => {
    const { run } = await sandboxRun(0);
    const created = await run([
      'create',
      S,
      'fail-a.com',
      'a.com',
      'fail-b.com',
      'b.com',
      '--chunk-size',
      '2',
      '-y',
      '--wait',
    ]);
    expect(created.code).toBe(11);
    const job = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(created.stderr)?.[1];
    const warnings = created.stderr.split('\n').filter((line) => line.startsWith('warning:'));
    expect(warnings).toEqual([
      `warning: 2 tasks completed with 2 failed items: taskctl show --job ${job} --items-status failed`,
    ]);
  });

  it('one task: named as before', async () => {
    const { run } = await sandboxRun(0);
    const id = Number((await run(['create', S, 'fail-a.com', 'a.com', '-q', '-y'])).stdout);
    const result = await run(['wait', String(id)]);
    expect(result.stderr).toContain(
      `warning: task ${id} completed with 1 failed item: taskctl show ${id} --items-status failed`,
    );
  });
});

/** `watch` at 80 columns: a failed task says why on its line, and the end says where to look, as `wait` does. */
import { describe, expect, it } from 'vitest';
import { sandboxRun, type RunOptions } from '../run-in-process.js';

const terminal: RunOptions = { stdoutTTY: true, stderrTTY: true, columns: 80 };

describe('watch: failed tasks and items', () => {
  it('a failed task: its reason on a row under its line, cut to the width; the end names it as wait does (exit 10)', async () => {
    const { run } = await sandboxRun(500);
    const id = Number((await run(['create', 'domain_check_availability', 'taskfail-a.com', 'b.com', '-q'])).stdout);
    const result = await run(['watch', String(id)], terminal);
    expect(result.code).toBe(10);
    const lines = result.stdout.trimEnd().split('\n');
    const failed = lines.findIndex((line) => / failed {6}/.test(line));
    expect(failed, result.stdout).toBeGreaterThanOrEqual(0);
    expect(lines[failed]).toMatch(new RegExp(`^\\S+Z  task ${id}  domain_check_\\S*…  failed  `));
    expect(lines[failed + 1]).toMatch(/^ {2}Processing failed at item 1 of 2 .*taskfail-a\.com/);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(79);
    expect(result.stderr).toContain(`error: task ${id} failed: Processing failed at item 1 of 2`);
    expect(result.stderr).toContain(`See the items: taskctl show ${id}`);
  });

  it('in a pipe with -o table: the reason whole on the line', async () => {
    const { run } = await sandboxRun(500);
    const id = Number((await run(['create', 'domain_check_availability', 'taskfail-a.com', '-q'])).stdout);
    const result = await run(['watch', String(id), '-o', 'table'], { stdoutTTY: false });
    expect(result.code).toBe(10);
    expect(result.stdout).toMatch(
      / failed {6}0\/1, 1 failed: Processing failed at item 1 of 1 \("taskfail-a\.com"\): .+$/m,
    );
  });

  it('a task completed with failed items: the end names the command that lists them (exit 11)', async () => {
    const { run } = await sandboxRun(500);
    const id = Number((await run(['create', 'domain_check_availability', 'fail-a.com', 'b.com', '-q'])).stdout);
    const result = await run(['watch', String(id)], terminal);
    expect(result.code).toBe(11);
    // At 80 columns the command goes on a line of its own, never broken.
    expect(result.stderr.replace(/\s+/g, ' ')).toContain(
      `warning: task ${id} completed with 1 failed item: taskctl show ${id} --items-status failed`,
    );
  });
});

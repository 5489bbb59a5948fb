/** `watch` for a person: says what it watches, aligned lines, the event's own time, the right Ctrl-C hint. */
import { describe, expect, it } from 'vitest';
import { sandboxRun, type RunOptions } from '../run-in-process.js';

const person: RunOptions = { stdoutTTY: true, stderrTTY: false, columns: 100 };

describe('watch for a person', () => {
  it('with nothing running: one line, that nothing was unfinished and how to keep watching', async () => {
    const { run } = await sandboxRun(500);
    const result = await run(['watch'], person);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('no unfinished tasks: nothing to watch (`taskctl watch --follow` waits for new ones)\n');
  });

  it('without ids: says how many unfinished tasks it found, once the list was read', async () => {
    const { run } = await sandboxRun(500);
    await run(['create', 'domain_check_availability', 'a.com', '-q']);
    await run(['create', 'domain_check_availability', 'b.com', '-q']);
    const result = await run(['watch'], person);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('watching 2 unfinished tasks; Ctrl-C to stop\n');
  });

  it('the heading comes before the first record, which waited for the list to be read', async () => {
    const { run } = await sandboxRun(500);
    await run(['create', 'domain_check_availability', 'a.com', 'b.com', '-q']);
    const result = await run(['watch'], person);
    expect(result.code).toBe(0);
    const lines = (result.output ?? '').trimEnd().split('\n');
    expect(lines[0]).toBe('watching 1 unfinished task; Ctrl-C to stop');
    expect(lines.slice(1).length).toBeGreaterThan(1);
    for (const line of lines.slice(1)) expect(line).toMatch(/^\S+Z {2}task \d+ /);
  });

  it.each([
    ['a pipe', { stdoutTTY: false }],
    ['a terminal', person],
  ])('-q alone in %s: nothing on stdout, only the warning wait gives too; the exit code speaks', async (_, options) => {
    const { run } = await sandboxRun(500);
    await run(['create', 'domain_check_availability', 'a.com', 'fail-b.com', '-q']);
    const result = await run(['watch', '-q'], options);
    expect(result.code).toBe(11);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('warning: task 1 completed with 1 failed item: taskctl show 1 --items-status failed\n');
  });

  it('aligned columns, the time of the event from the task (ISO UTC, no milliseconds), counts as list shows them', async () => {
    const { run, sandbox } = await sandboxRun(500);
    const created: number[] = [];
    for (const [service, items] of [
      ['domain_check_availability', ['a.com', 'fail-b.com']],
      ['email_verify', ['x@example.com']],
    ] as const) {
      const result = await run(['create', service, ...items, '-q']);
      created.push(Number(result.stdout.trim()));
    }
    const result = await run(['watch', ...created.map(String)], person);
    expect(result.code).toBe(11);
    const lines = result.stdout.trim().split('\n');
    for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}task \d+ {2,}\S+ +\S+/);
    // The status column starts at the same place on every line.
    const at = lines.map((line) => line.search(/(pending|processing|completed)/));
    expect(new Set(at).size).toBe(1);
    expect(result.stdout).toMatch(/completed +1\/2, 1 failed$/m);
    const sandboxTasks = (await (
      await fetch(`${sandbox.url}/tasks/${created[0]}`, {
        headers: { 'x-api-key': sandbox.apiKey },
      })
    ).json()) as { data: { completed_at: string } };
    expect(result.stdout).toContain(`${sandboxTasks.data.completed_at.replace(/\.\d{3}Z$/, 'Z')}  task ${created[0]}`);
  });

  it('Ctrl-C names `taskctl watch` to resume, not wait', async () => {
    const { run } = await sandboxRun(500);
    const id = Number((await run(['create', 'domain_check_availability', 'a.com', 'b.com', 'c.com', '-q'])).stdout);
    // Interrupted before its first look: the task is still running.
    const controller = new AbortController();
    controller.abort(new Error('interrupted'));
    const pending = run(['watch', String(id)], { ...person, signal: controller.signal });
    const result = await pending;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(`still running: taskctl watch ${id}`);
  });
});

describe('watch at a narrow terminal', () => {
  /** Two tasks whose lines are wider than 80 columns as they come (the longest service, counts with failures). */
  async function watchAt(columns: number) {
    const { run } = await sandboxRun(500);
    const created: number[] = [];
    for (const [service, items] of [
      ['domain_check_availability', ['a.com', 'fail-b.com', 'c.com', 'fail-d.com', 'e.com', 'f.com', 'g.com']],
      ['email_verify', ['x@example.com', 'fail-y@example.com']],
    ] as const) {
      const result = await run(['create', service, ...items, '-q']);
      created.push(Number(result.stdout.trim()));
    }
    return run(['watch', ...created.map(String)], { stdoutTTY: true, stderrTTY: true, columns });
  }

  it('at 80 columns: one line an event within 79 columns, the columns still aligned (never rewrapped)', async () => {
    const result = await watchAt(80);
    expect(result.code).toBe(11);
    const lines = result.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(79);
    for (const line of lines)
      expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}task \d+ {2,}\S+ {2,}\S+ {2,}\S/);
    const status = lines.map((line) => line.search(/ (pending|processing|completed)/));
    expect(new Set(status).size).toBe(1);
    // The service is cut, never the counts: the last line of the first task has them whole.
    expect(result.stdout).toMatch(/ {2}domain_check\S*… +completed +5\/7, 2 failed$/m);
    expect(result.stdout).toMatch(/ {2}email_verify +completed +1\/2, 1 failed$/m);
  });

  it('at 120 columns: the lines as they come, the service whole', async () => {
    const result = await watchAt(120);
    expect(result.code).toBe(11);
    expect(result.stdout).toMatch(/ {2}domain_check_availability {2}completed {3}5\/7, 2 failed$/m);
  });

  it.each([80, 120])(
    'at %i columns: a task with more items, or a longer service, seen after the first lines moves no column',
    async (columns) => {
      const { run } = await sandboxRun(500);
      const created: number[] = [];
      const many = Array.from({ length: 150 }, (_, i) => `d${i}.com`);
      // Created largest first: the newest, printed first, is the smallest, with the shortest service.
      for (const [service, items] of [
        ['domain_check_availability', many],
        ['domain_check_availability', ['a.com', 'b.com']],
        ['email_verify', ['x@example.com']],
      ] as const) {
        const result = await run(['create', service, ...items, '-q']);
        created.push(Number(result.stdout.trim()));
      }
      const result = await run(['watch', ...created.map(String)], { stdoutTTY: true, stderrTTY: true, columns });
      expect(result.code).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines.some((line) => line.includes('/150'))).toBe(true);
      for (const line of lines) expect(line.length).toBeLessThan(columns);
      const status = lines.map((line) => line.search(/ (pending|processing|completed)/));
      expect(new Set(status).size).toBe(1);
    },
  );
});

/** `taskctl show <id...>`: several tasks in one export, a task column first, --columns, --items-status. */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl, T0 } from '../run-in-process.js';

function taskBody(id: number, service: string, items: unknown[]) {
  return {
    success: true,
    data: {
      id,
      service,
      status: 'completed',
      total_items: items.length,
      cost: items.length,
      created_at: new Date(T0 - 600_000).toISOString(),
      completed_at: new Date(T0 - 540_000).toISOString(),
      items,
    },
  };
}

const A = taskBody(1, 'domain_check_availability', [
  { target: 'a.com', status: 'completed', data: { available: true } },
  { target: 'b.com', status: 'failed', data: null, error: 'lookup failed' },
]);
const B = taskBody(2, 'email_verify', [{ target: 'x@y.com', status: 'completed', data: { deliverable: false } }]);

function twoTasks() {
  const api = mockApi();
  api.reply('GET', '/tasks/1', 200, A);
  api.reply('GET', '/tasks/2', 200, B);
  return api;
}

describe('show A B', () => {
  it('-o csv: one header, the task column first, data columns the union in first-seen order', async () => {
    const api = twoTasks();
    const result = await runTaskctl(['show', '1', '2', '-o', 'csv'], { api });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        'task,target,status,available,deliverable,error',
        '1,a.com,completed,true,,',
        '1,b.com,failed,,,lookup failed',
        '2,x@y.com,completed,,false,',
        '',
      ].join('\n'),
    );
    expect(api.calls).toEqual(['GET /tasks/1', 'GET /tasks/2']);
  });

  it('-o ndjson: the task id first in every record; --items-status applies to every task', async () => {
    const result = await runTaskctl(['show', '1', '2', '-o', 'ndjson', '--items-status', 'completed'], {
      api: twoTasks(),
    });
    const records = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((r) => [r.task, r.target])).toEqual([
      [1, 'a.com'],
      [2, 'x@y.com'],
    ]);
    expect(Object.keys(records[0] ?? {})[0]).toBe('task');
  });

  it('-o json: a list of tasks; one id keeps the task object', async () => {
    const many = await runTaskctl(['show', '1', '2', '-o', 'json'], { api: twoTasks() });
    expect((JSON.parse(many.stdout) as Array<{ id: number }>).map((t) => t.id)).toEqual([1, 2]);
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, A);
    const one = await runTaskctl(['show', '1', '-o', 'json'], { api });
    expect(JSON.parse(one.stdout)).toMatchObject({ id: 1, service: 'domain_check_availability' });
  });

  it('on a terminal: each task with its summary and items, human labels, ages', async () => {
    const result = await runTaskctl(['show', '1', '2'], {
      api: twoTasks(),
      stdoutTTY: true,
      columns: 80,
      env: { NO_COLOR: '1' },
    });
    expect(result.stdout).toMatch(/^ID: +1$/m);
    expect(result.stdout).toMatch(/^ID: +2$/m);
    expect(result.stdout).toMatch(/^Created: +\S+ \(10m ago\)$/m);
    // Each task's table has its own result fields, not the other service's empty ones.
    expect(result.stdout).toMatch(/^TARGET +STATUS +AVAILABLE +ERROR$/m);
    // No item of task 2 failed: its table has no ERROR column of dashes.
    expect(result.stdout).toMatch(/^TARGET +STATUS +DELIVERABLE$/m);
    expect(result.stdout).not.toMatch(/^TASK/m);
  });

  it('a missing task is exit 5 naming it, and nothing is printed', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, A);
    api.reply('GET', '/tasks/9', 404, { success: false, error: { code: 'not_found', message: 'Task not found' } });
    const result = await runTaskctl(['show', '1', '9', '-o', 'csv'], { api });
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/task 9/);
  });

  it('a bad id is exit 2 before any request', async () => {
    const api = mockApi();
    const result = await runTaskctl(['show', '1', 'x'], { api });
    expect(result.code).toBe(2);
    expect(api.calls).toEqual([]);
  });
});

describe('show --columns', () => {
  it('chooses and orders columns, data fields included, in csv and tsv', async () => {
    const csv = await runTaskctl(['show', '1', '2', '--columns', 'target,available,task', '-o', 'csv'], {
      api: twoTasks(),
    });
    expect(csv.stdout).toBe('target,available,task\na.com,true,1\nb.com,,1\nx@y.com,,2\n');
  });

  it('a name the tasks do not have is an empty column, named on stderr with the columns seen (columns-unseen.test.ts)', async () => {
    const result = await runTaskctl(['show', '1', '2', '--columns', 'target,price', '-o', 'tsv'], { api: twoTasks() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('a.com\t\nb.com\t\nx@y.com\t\n');
    expect(result.stderr).toContain('no item has the column "price"');
    expect(result.stderr).toContain('task, target, status, available, deliverable, error');
  });
});

describe('show of a task with more items than a table shows', () => {
  it('flattens only the rows the table shows and says how many there are', async () => {
    // One past the 1,000 rows a table shows (TABLE_MAX_ROWS).
    const items = Array.from({ length: 1001 }, (_, i) => ({ target: `d${i}.io`, status: 'completed', data: { n: i } }));
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, taskBody(1, 'domain_check_availability', items));
    const result = await runTaskctl(['show', '1', '-o', 'table'], { api });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/d999\.io/);
    expect(result.stdout).not.toMatch(/d1000\.io/);
    expect(result.stderr).toMatch(/showing the first 1,000 of 1,001 items of task 1; use -o tsv or -o csv/);
  });
});

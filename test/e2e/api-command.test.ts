/**
 * `taskctl api` against the sandbox: GET and POST work, 404 exits 5. The first case is the real bin; the others run
 * `main()` in this process (their subject is the request and its answer, not the process).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type E2EWorld } from './spawn-cli.js';

let world: E2EWorld;
beforeAll(async () => {
  world = await startWorld({ itemMs: 0 });
});
afterAll(() => world.close());

const stats = () => world.admin<{ requests: Record<string, number> }>('GET', '/__sandbox/stats');

describe('taskctl api against the sandbox', () => {
  it('GET /balance prints the body as it came, exit 0', async () => {
    // The bin, once: every command family keeps one spawned run (test/README.md#e2e-in-process-or-spawned).
    const result = await world.run(['api', '/balance']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ success: true, data: { balance: 10000, currency: 'coins' } });
    expect(result.stderr).toBe('');
  });

  it('POST /tasks with --input - creates exactly one task, which a GET then reads', async () => {
    await world.admin('POST', '/__sandbox/stats/reset');
    const body = JSON.stringify({ service: 'domain_check_availability', items: ['example.com', 'fail-x.com'] });
    const created = await world.inProcess(['api', 'POST', '/tasks', '--input', '-'], { stdin: body });
    expect(created.code).toBe(0);
    const task = (JSON.parse(created.stdout) as { data: { id: number; total_items: number } }).data;
    expect(task.total_items).toBe(2);
    expect((await stats()).requests).toEqual({ 'POST /api/v1/tasks': 1 });

    const read = await world.inProcess(['api', `tasks/${task.id}`, '-i']);
    expect(read.code).toBe(0);
    expect(read.stdout).toMatch(/^HTTP 200 OK\n/);
    expect(read.stdout).toMatch(/^content-type: application\/json/m);
    expect(read.stdout).toContain(`"id":${task.id}`);
  });

  it('POST with -f/-F fields builds the JSON body', async () => {
    const result = await world.inProcess([
      'api',
      'POST',
      '/tasks',
      '-f',
      'service=domain_check_availability',
      '-f',
      'items[]=a.com',
      '-f',
      'items[]=b.com',
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ success: true, data: { total_items: 2 } });
  });

  it('GET with fields sends them as the query', async () => {
    const result = await world.inProcess(['api', '/tasks', '-f', 'per_page=1']);
    expect(result.code).toBe(0);
    const page = JSON.parse(result.stdout) as { data: unknown[]; meta: { per_page: number } };
    expect(page.data).toHaveLength(1);
    expect(page.meta.per_page).toBe(1);
  });

  it('a 404 exits 5: the body on stdout, one error line and a hint on stderr', async () => {
    const result = await world.inProcess(['api', '/tasks/99999']);
    expect(result.code).toBe(5);
    expect(JSON.parse(result.stdout)).toMatchObject({ success: false, error: { code: 'not_found' } });
    expect(result.stderr).toBe('error: task 99999 was not found\nCheck the id with `taskctl list`.\n');
  });

  it('a wrong key exits 4 and the key never appears', async () => {
    const result = await world.inProcess(['api', '/balance'], { env: { TASKCTL_API_KEY: 'sk_wrong_key_123' } });
    expect(result.code).toBe(4);
    expect(result.stdout + result.stderr).not.toContain('sk_wrong_key_123');
  });

  it('a POST whose connection drops after the server acted is not resent: exit 8, exactly one task', async () => {
    const before = (await world.admin<{ tasks: unknown[] }>('GET', '/__sandbox/state')).tasks.length;
    await world.admin('POST', '/__sandbox/faults', {
      method: 'POST',
      path: '/api/v1/tasks',
      kind: 'reset-after',
      count: 1,
    });
    try {
      const body = JSON.stringify({ service: 'domain_check_availability', items: ['once.com'] });
      const result = await world.inProcess(['api', 'POST', '/tasks', '--input', '-'], { stdin: body });
      // Exit 9 as for a create: 8 means "try again", which would pay twice.
      expect(result.code).toBe(9);
      expect(result.stderr).toMatch(/may have created a task/);
      const after = (await world.admin<{ tasks: unknown[] }>('GET', '/__sandbox/state')).tasks.length;
      expect(after).toBe(before + 1);
    } finally {
      await world.admin('DELETE', '/__sandbox/faults');
    }
  });

  it('refuses a way out of the base URL (exit 2) without sending anything', async () => {
    await world.admin('POST', '/__sandbox/stats/reset');
    for (const path of ['/../../__sandbox/state', `${world.sandbox.origin}/__sandbox/state`]) {
      const result = await world.inProcess(['api', path]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
    }
    expect((await stats()).requests).toEqual({});
  });
});

/**
 * A 404 on a task read is the service's "no such task" only in the API's error form with the code `not_found`
 * (docs/openapi.json, GET /tasks/{id}'s 4XX): a proxy's page, a body of another shape or another code is not the API's,
 * and every task read says so with the `--base-url` advice (exit 8), never "task N was not found" (exit 5), which
 * would send people looking for an id that is fine.
 */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl, sandboxRun, T0 } from '../commands/run-in-process.js';

const HTML_404 = '<html><body><h1>404 Not Found</h1><p>nginx</p></body></html>';
const NOT_THE_APIS: ReadonlyArray<[string, string, Record<string, string>]> = [
  ['an HTML page', HTML_404, { 'content-type': 'text/html' }],
  ['JSON of another shape', '{"message":"Not Found"}', {}],
  ['an empty body', '', {}],
];

function task(id: number) {
  return {
    success: true,
    data: {
      id,
      service: 'domain_check_availability',
      status: 'completed',
      total_items: 1,
      cost: 1,
      created_at: new Date(T0 - 600_000).toISOString(),
      completed_at: new Date(T0 - 540_000).toISOString(),
      items: [{ target: 'a.com', status: 'completed', data: { available: true } }],
    },
  };
}

const COMMANDS: ReadonlyArray<[string, string[]]> = [
  ['show', ['show', '1']],
  ['wait', ['wait', '1']],
  ['diff', ['diff', '2', '1']],
];

describe("a 404 that is not the API's, on a task read", () => {
  for (const [what, body, headers] of NOT_THE_APIS) {
    it.each(COMMANDS)(`%s: ${what} is the --base-url advice, exit 8, not "task 1 was not found"`, async (_, argv) => {
      const api = mockApi();
      if (argv[0] === 'diff') api.reply('GET', '/tasks/2', 200, task(2));
      api.reply('GET', '/tasks/1', 404, body, { headers });
      const result = await runTaskctl(argv, { api });
      expect(result.code, result.stderr).toBe(8);
      expect(result.stderr).not.toMatch(/was not found|taskctl list/);
      expect(result.stderr).toMatch(/^error: reading task 1: the server answered HTTP 404/m);
      expect(result.stderr).toMatch(/--base-url/);
      expect(result.stdout).toBe('');
    });
  }

  it('another error code in the API\'s form is not the service\'s "no such task" either', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/1', 404, { success: false, error: { code: 'route_missing', message: 'no route' } });
    const result = await runTaskctl(['show', '1'], { api });
    expect(result.code, result.stderr).toBe(8);
    expect(result.stderr).toMatch(/^error: reading task 1: the server answered HTTP 404 \(route_missing: no route\)/m);
    expect(result.stderr).toMatch(/--base-url/);
  });

  it.each(COMMANDS)('%s: the API\'s not_found stays "task 1 was not found", exit 5', async (_, argv) => {
    const api = mockApi();
    if (argv[0] === 'diff') api.reply('GET', '/tasks/2', 200, task(2));
    api.reply('GET', '/tasks/1', 404, { success: false, error: { code: 'not_found', message: 'Task 1 not found' } });
    const result = await runTaskctl(argv, { api });
    expect(result.code, result.stderr).toBe(5);
    expect(result.stderr).toMatch(/task 1 was not found/);
    expect(result.stderr).toMatch(/taskctl list/);
    expect(result.stderr).not.toMatch(/--base-url/);
  });

  it('a base URL with the wrong path in front of the sandbox: the --base-url advice, not "task 1 was not found"', async () => {
    const { run, sandbox } = await sandboxRun(10);
    const created = await run(['create', 'domain_check_availability', 'a.com', '-y', '-q']);
    expect(created.code, created.stderr).toBe(0);
    for (const argv of [
      ['show', '1'],
      ['wait', '1'],
      ['diff', '1', '1'],
    ]) {
      const result = await run(argv, { env: { TASKCTL_BASE_URL: `${sandbox.origin}/nope` } });
      expect(result.code, result.stderr).toBe(8);
      expect(result.stderr).not.toMatch(/was not found|taskctl list/);
      expect(result.stderr).toMatch(/^error: reading task 1: the server answered HTTP 404/m);
      expect(result.stderr).toMatch(/--base-url/);
    }
  });

  it('balance: an HTML 404 keeps its --base-url advice', async () => {
    const api = mockApi();
    api.reply('GET', '/balance', 404, HTML_404, { headers: { 'content-type': 'text/html' } });
    const result = await runTaskctl(['balance'], { api });
    expect(result.stderr).toMatch(/Check --base-url: it should end in \/api\/v1\./);
  });
});

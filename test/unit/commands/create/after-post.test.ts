/**
 * Once a POST /tasks may have landed, every later failure is exit 9, never 8: exit 8 means "try again",
 * which could pay twice. The POST is answered 502 (a gateway page); what follows fails in different ways.
 */
import { describe, expect, it } from 'vitest';
import { mockApi, replyNoTasks, replyServices, runTaskctl } from '../harness.js';

const CREATED = '2025-01-15T12:00:00.100Z';
const candidate = {
  id: 5,
  service: 'domain_check_availability',
  status: 'pending',
  total_items: 1,
  cost: 1,
  created_at: CREATED,
  completed_at: null,
};
const page = (data: unknown[]) => ({
  success: true,
  data,
  meta: { current_page: 1, total_pages: 1, total_count: data.length, per_page: 100 },
});

function start() {
  const api = mockApi();
  replyServices(api);
  replyNoTasks(api);
  api.reply('POST', '/tasks', 502, '<html>502 Bad Gateway</html>', { headers: { 'content-type': 'text/html' } });
  // The replies below are generous: how many scans (and retries) the reconciliation makes is not the point here.
  api.allowUnused();
  return api;
}

describe('failures after a POST that may have landed', () => {
  it('a read of the candidate that answers another id: exit 9 naming the candidate, never 8', async () => {
    const api = start();
    api.reply('GET', /^\/tasks\?/, 200, page([candidate]), { times: 20 });
    api.reply('GET', '/tasks/5', 200, { success: true, data: { ...candidate, id: 6, items: [] } }, { times: 40 });
    const result = await runTaskctl(['create', 'domain_check_availability', 'a.com'], { api });
    expect(result.code, result.stderr).toBe(9);
    expect(result.stderr).toMatch(/may have created a task/);
    expect(result.stderr).toMatch(/GET \/tasks\/5: the server answered with task 6 instead of task 5/);
  });

  it('a list that turns malformed: exit 9, never 8', async () => {
    const api = start();
    api.reply('GET', /^\/tasks\?/, 200, page([{ ...candidate, id: 'five' }]), { times: 20 });
    const result = await runTaskctl(['create', 'domain_check_availability', 'a.com'], { api });
    expect(result.code, result.stderr).toBe(9);
    expect(result.stderr).toMatch(/may have created a task, and the task list could not be read to find out/);
  });

  it('the service gone during reconciliation (every list 503): exit 9, never 8', async () => {
    const api = start();
    api.reply(
      'GET',
      /^\/tasks\?/,
      503,
      { success: false, error: { code: 'internal_error', message: 'down' } },
      {
        times: 200,
      },
    );
    const result = await runTaskctl(['create', 'domain_check_availability', 'a.com'], { api });
    expect(result.code, result.stderr).toBe(9);
    expect(result.stderr).toMatch(/the task list could not be read to find out/);
  });
});

describe('a POST answered with a redirect', () => {
  it('303 See Other (a write carried out, "see there"): reconciled, exit 9, never 8', async () => {
    const api = mockApi();
    replyServices(api);
    replyNoTasks(api);
    api.reply('POST', '/tasks', 303, '', { headers: { location: '/api/v1/tasks/5' } });
    api.reply('GET', /^\/tasks\?/, 200, page([]), { times: 20 });
    api.allowUnused();
    const result = await runTaskctl(['create', 'domain_check_availability', 'a.com'], { api });
    expect(result.code, result.stderr).toBe(9);
    expect(result.stderr).toMatch(
      /POST \/tasks may have created a task \(HTTP 303, a redirect\); checking the task list/,
    );
    expect(result.stderr).toMatch(/no matching task of this request was found/);
  });
});

describe('the check of the task list is said once', () => {
  async function lostAnswer(terminal: boolean) {
    const api = start();
    api.reply('GET', /^\/tasks\?/, 200, page([]), { times: 200 });
    return runTaskctl(['create', 'domain_check_availability', 'a.com', 'b.com', '--chunk-size', '1'], {
      api,
      stderrTTY: terminal,
      stdoutTTY: terminal,
      columns: 200,
    });
  }

  it('at a terminal in the live line only, not in a static line above it', async () => {
    const result = await lostAnswer(true);
    expect(result.code, result.stderr).toBe(9);
    expect(result.stderr).toMatch(/⠋\u001b\[39m checking the task list for it \(for \d+s\)/);
    expect(result.stderr).toMatch(/warning:\u001b\[39m POST \/tasks may have created a task \(HTTP 502\)\n/);
    expect(result.stderr).not.toMatch(/warning:[^\n]*checking the task list/);
  });

  it('without a terminal in a line of its own', async () => {
    const result = await lostAnswer(false);
    expect(result.code, result.stderr).toBe(9);
    expect(result.stderr).toMatch(/warning: [^\n]*; checking the task list for it \(for \d+s\)…/);
  });
});

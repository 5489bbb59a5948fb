/**
 * Once a POST /tasks may have landed, every later failure is exit 9, never 8: exit 8 means "try again",
 * which could pay twice. The POST is answered 502 (a gateway page); what follows fails in different ways.
 */
import { describe, expect, it, vi } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateLedger } from '../../../../src/store/ledger.js';
import { FakeClock, mockApi, replyNoTasks, replyServices, runTaskctl, T0 } from '../run-in-process.js';

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

describe('a key refused while the task list is read (rotated mid-run)', () => {
  const refused = { success: false, error: { code: 'unauthorized', message: 'Invalid or missing API key' } };

  it('one task: exit 9 at once (the POST may have landed), the key advice first, then the job resumed', async () => {
    const api = start();
    api.reply('GET', /^\/tasks\?/, 401, refused, { times: 20 });
    const clock = new FakeClock();
    const result = await runTaskctl(['create', 'domain_check_availability', 'a.com'], { api, clock });
    expect(result.code, result.stderr).toBe(9);
    expect(result.stderr).toMatch(/may have created a task, and the task list could not be read to find out/);
    expect(result.stderr).toMatch(
      /\nThe key from TASKCTL_API_KEY was refused: check or unset it \(.*\)\. Then continue it: taskctl resume j-\S+\n$/,
    );
    // No scan after the refusal: a refused key is not waited out to the horizon.
    expect(api.calls.filter((call) => call.startsWith('GET /tasks?'))).toHaveLength(2);
    expect(clock.sleeps.reduce((sum, ms) => sum + ms, 0)).toBeLessThan(1000);
  });

  it('a chunk of a job: exit 9, the tasks created named, the key advice, then the job resumed', async () => {
    const api = mockApi();
    replyServices(api);
    api.reply('GET', '/balance', 200, { success: true, data: { balance: 100, currency: 'coins' } });
    replyNoTasks(api);
    const task = { ...candidate, id: 1, items: [{ target: 'a.com', status: 'pending', data: null }] };
    api.reply('POST', '/tasks', 201, { success: true, data: task });
    replyNoTasks(api);
    api.reply('POST', '/tasks', 502, '<html>502 Bad Gateway</html>', { headers: { 'content-type': 'text/html' } });
    api.reply('GET', /^\/tasks\?/, 401, refused, { times: 20 });
    api.allowUnused();
    const result = await runTaskctl(['create', 'domain_check_availability', 'a.com', 'b.com', '--chunk-size', '1'], {
      api,
    });
    expect(result.code, result.stderr).toBe(9);
    expect(result.stderr).toContain('created 1 of 2 tasks before that: 1');
    expect(result.stderr).toMatch(
      /\nThe key from TASKCTL_API_KEY was refused: check or unset it \(.*\)\. Then continue it: taskctl resume j-\S+\n$/,
    );
  });
});

describe('a service whose Date clock runs behind the clock that stamps created_at (a gateway writes Date)', () => {
  it('a 502 after the task was made: exit 9 naming the task, and resume adopts it, never "no matching task"', async () => {
    const home = mkdtempSync(join(tmpdir(), 'taskctl-behind-'));
    try {
      // Date reads 5 s behind; the task is stamped at the local (and application) time, after the 502 as Date reads it.
      const behind = { date: new Date(T0 - 5000).toUTCString() };
      const withCandidate = (api: ReturnType<typeof mockApi>) => {
        // The checks' lists carry no Date (a mocked Date would not move with the fake clock).
        api.reply('GET', /^\/tasks\?/, 200, page([candidate]), { times: 20 });
        const items = [{ target: 'a.com', status: 'pending', data: null }];
        api.reply('GET', '/tasks/5', 200, { success: true, data: { ...candidate, items } }, { times: 40 });
        api.allowUnused();
      };
      const api = mockApi();
      replyServices(api);
      replyNoTasks(api, behind);
      api.reply('POST', '/tasks', 502, '<html>502 Bad Gateway</html>', {
        headers: { 'content-type': 'text/html', ...behind },
      });
      withCandidate(api);
      const result = await runTaskctl(['create', 'domain_check_availability', 'a.com'], { api, home });
      expect(result.code, result.stderr).toBe(9);
      expect(result.stderr).not.toMatch(/no matching task/);
      expect(result.stderr).toMatch(/task 5 matches, stamped after the service had answered the request/);
      const job = /taskctl resume (j-\S+)/.exec(result.stderr)?.[1] ?? '';
      const later = mockApi();
      replyServices(later);
      withCandidate(later);
      const resumed = await runTaskctl(['resume', job, '-y'], { api: later, home });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toContain('chunk 1: task 5 was created by the interrupted request');
      expect(later.calls.filter((call) => call.startsWith('POST'))).toEqual([]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
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

describe('a create answered with a task that cannot be this request’s: reconciled like a garbled answer', () => {
  const S = 'domain_check_availability';
  const created = (data: Record<string, unknown>) => ({
    success: true,
    message: 'ok',
    data: { ...candidate, ...data },
  });
  const withItems = (id: number, targets: string[], extra: Record<string, unknown> = {}) => ({
    success: true,
    data: {
      ...candidate,
      id,
      total_items: targets.length,
      cost: targets.length,
      items: targets.map((target) => ({ target, status: 'pending', data: null })),
      ...extra,
    },
  });

  function answered(data: Record<string, unknown>) {
    const api = mockApi();
    replyServices(api);
    replyNoTasks(api);
    api.reply('POST', '/tasks', 201, created(data));
    api.allowUnused();
    return api;
  }
  const posts = (api: { calls: string[] }) => api.calls.filter((call) => call.startsWith('POST')).length;

  it('another service and size: exit 9 saying what the answer was, never "✓ task 7"', async () => {
    const api = answered({ id: 7, service: 'email_verify', total_items: 99, cost: 198 });
    api.reply('GET', /^\/tasks\?/, 200, page([]), { times: 20 });
    const result = await runTaskctl(['create', S, 'a.com', 'b.com', '-y'], { api });
    expect(result.code, result.stderr).toBe(9);
    expect(result.stdout).not.toMatch(/\b7\b/);
    expect(result.stderr).toContain(
      `the service answered the create with task 7 of email_verify for 99 items, not this request's 2 items of ${S}`,
    );
    expect(result.stderr).toMatch(/may have created a task, and no matching task of this request was found/);
    expect(result.stderr).not.toMatch(/✓|198 coins/);
    expect(posts(api)).toBe(1);
  });

  it('more items than were sent: the task the list proves is this request’s is adopted instead', async () => {
    const api = answered({ id: 7, total_items: 3, cost: 3 });
    api.reply('GET', /^\/tasks\?/, 200, page([{ ...candidate, id: 8, total_items: 2, cost: 2 }]), { times: 20 });
    api.reply('GET', '/tasks/8', 200, withItems(8, ['b.com', 'a.com']), { times: 5 });
    const result = await runTaskctl(['create', S, 'a.com', 'b.com', '-q'], { api });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('8');
    expect(result.stderr).toContain(`task 7 of ${S} for 3 items, not this request's 2 items of ${S}`);
    expect(result.stderr).toMatch(/recovered: task 8 was created by this request/);
    expect(posts(api)).toBe(1);
  });

  it('a task the listing before the POST showed (an hour old): exit 9, never reported', async () => {
    const old = { ...candidate, id: 1, total_items: 2, cost: 2, created_at: '2025-01-15T11:00:00.000Z' };
    const api = mockApi();
    replyServices(api);
    api.reply('GET', /^\/tasks\?/, 200, page([old]), { times: 20 });
    api.reply('POST', '/tasks', 201, created(old));
    api.allowUnused();
    const result = await runTaskctl(['create', S, 'a.com', 'b.com', '-q'], { api });
    expect(result.code, result.stderr).toBe(9);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'the service answered the create with task 1, which the task list showed before this request was sent',
    );
    expect(posts(api)).toBe(1);
  });

  describe('a created_at before the request was sent, on the service’s own clock (a Date received before it)', () => {
    const httpDate = (ms: number) => new Date(ms).toUTCString();
    const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
    /**
     * The listing before the POST as a newest-first list of three pages, read to ten minutes back: its second page is
     * past the edge, so the third is not read, and a task stamped an hour before may have existed unlisted.
     */
    function listingTenMinutesBack(api: ReturnType<typeof mockApi>, date: number) {
      const recent = (id: number, age: number) => ({
        ...candidate,
        id,
        service: 'email_verify',
        created_at: iso(T0 - age),
      });
      const meta = (n: number) => ({ current_page: n, total_pages: 3, total_count: 201, per_page: 100 });
      const headers = { date: httpDate(date) };
      api.reply(
        'GET',
        /^\/tasks\?page=1\b/,
        200,
        { success: true, data: [recent(92, 10_000), recent(91, 20_000)], meta: meta(1) },
        { headers },
      );
      api.reply(
        'GET',
        /^\/tasks\?page=2\b/,
        200,
        { success: true, data: [recent(90, 600_000)], meta: meta(2) },
        { headers },
      );
    }

    it.each([['an hour', 3_600_000]])(
      'the listing before the POST failed, and the answer is a task stamped %s before: exit 9 naming it, never reported or sent again',
      async (_, age) => {
        const api = mockApi();
        replyServices(api);
        const down = { success: false, error: { code: 'internal_error', message: 'down' } };
        api.reply('GET', /^\/tasks\?/, 503, down, { times: 200, headers: { date: httpDate(T0) } });
        api.reply('POST', '/tasks', 201, created({ id: 1, created_at: iso(T0 - age) }));
        api.allowUnused();
        const result = await runTaskctl(['create', S, 'a.com', '-q'], { api });
        expect(result.code, result.stderr).toBe(9);
        expect(result.stdout).toBe('');
        expect(result.stderr).toContain(
          `the service answered the create with task 1, created ${iso(T0 - age)}, before this request was sent (the service's clock had read 2025-01-15T12:00:00.000Z by then)`,
        );
        expect(posts(api)).toBe(1);
      },
    );

    it('the list then proves it is this request’s (the service’s clock stepped back): recovered, in words that name it', async () => {
      const api = mockApi();
      replyServices(api);
      const stamped = iso(T0 - 3_600_000);
      listingTenMinutesBack(api, T0);
      api.reply('POST', '/tasks', 201, created({ id: 1, created_at: stamped }));
      const listed = { ...candidate, id: 1, created_at: stamped };
      api.reply('GET', /^\/tasks\?/, 200, page([listed]), { times: 200, headers: { date: httpDate(T0 - 3_600_000) } });
      api.reply('GET', '/tasks/1', 200, withItems(1, ['a.com'], { created_at: stamped }), { times: 20 });
      api.allowUnused();
      const result = await runTaskctl(['create', S, 'a.com', '-q'], { api });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim()).toBe('1');
      expect(result.stderr).toContain(
        'recovered: task 1 was created by this request (the response named it, though its created_at read as before the request was sent;',
      );
      expect(result.stderr).not.toContain('the response named another task');
    });

    it('such a task whose items match is the chunk’s candidate: the job keeps it, and resume offers it, never sends again', async () => {
      const home = mkdtempSync(join(tmpdir(), 'taskctl-answer-'));
      try {
        const api = mockApi();
        replyServices(api);
        listingTenMinutesBack(api, T0);
        api.reply('GET', /^\/tasks\?/, 200, page([]), { times: 200, headers: { date: httpDate(T0) } });
        api.reply('POST', '/tasks', 201, created({ id: 1, created_at: iso(T0 - 3_600_000) }));
        api.allowUnused();
        const result = await runTaskctl(['create', S, 'a.com', '-q'], { api, home });
        expect(result.code, result.stderr).toBe(9);
        expect(result.stderr).toContain('task 1, which the service answered with, holds its items');
        const job = /taskctl resume (j-\S+)/.exec(result.stderr)?.[1] ?? '';
        const later = mockApi();
        replyServices(later);
        later.reply('GET', /^\/tasks\?/, 200, page([]), { times: 200, headers: { date: httpDate(T0) } });
        later.allowUnused();
        const resumed = await runTaskctl(['resume', job, '-y'], { api: later, home });
        expect(resumed.code, resumed.stderr).toBe(9);
        expect(resumed.stderr).toContain(`taskctl resume ${job} --yes --adopt 1=1`);
        expect(posts(later)).toBe(0);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });

    it.each([
      ['5 s', 5_000],
      ['90 s', 90_000],
    ])(
      'an answer stamped %s before the last Date (a gateway or another node writes Date, the database created_at): believed',
      async (_, age) => {
        const api = mockApi();
        replyServices(api);
        api.reply('GET', /^\/tasks\?/, 200, page([]), { headers: { date: httpDate(T0) } });
        api.reply('POST', '/tasks', 201, created({ id: 5, created_at: iso(T0 - age) }));
        const result = await runTaskctl(['create', S, 'a.com', '-q'], { api });
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout.trim()).toBe('5');
        expect(result.stderr).not.toMatch(/may have created|recovered/);
        expect(posts(api)).toBe(1);
      },
    );

    it.each([
      ['an empty task list', []],
      [
        'a task list it read to its end',
        [{ ...candidate, id: 4, service: 'email_verify', created_at: iso(T0 - 7_200_000) }],
      ],
    ])(
      'a Date header 5 minutes ahead of the clock stamping tasks, and %s before the POST: the answer is believed (the list proves it new)',
      async (_, before) => {
        const api = mockApi();
        replyServices(api);
        api.reply('GET', /^\/tasks\?/, 200, page(before), { headers: { date: httpDate(T0 + 300_000) } });
        api.reply('POST', '/tasks', 201, created({ id: 5, created_at: iso(T0) }));
        const result = await runTaskctl(['create', S, 'a.com', '-q'], { api });
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout.trim()).toBe('5');
        expect(result.stderr).not.toMatch(/may have created|recovered/);
        expect(posts(api)).toBe(1);
      },
    );

    it('the same with --reuse-window, each chunk’s lookup its listing: both answers believed, nothing sent again', async () => {
      const api = mockApi();
      replyServices(api);
      api.reply('GET', /^\/tasks\?/, 200, page([]), { times: 20, headers: { date: httpDate(T0 + 300_000) } });
      api.reply('POST', '/tasks', 201, created({ id: 5, created_at: iso(T0) }));
      api.reply('POST', '/tasks', 201, created({ id: 6, created_at: iso(T0) }));
      api.allowUnused();
      const argv = ['create', S, 'a.com', 'b.com', '--chunk-size', '1', '--reuse-window', '1h', '-q'];
      const result = await runTaskctl(argv, { api });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim().split('\n')).toEqual(['5', '6']);
      expect(result.stderr).not.toMatch(/may have created|recovered/);
      expect(posts(api)).toBe(2);
    });

    it('a lost answer of the first create: its task found as new since the listing before the POST', async () => {
      const api = mockApi();
      replyServices(api);
      const date = { date: httpDate(T0 + 300_000) };
      const older = { ...candidate, id: 4, created_at: iso(T0 - 7_200_000) };
      const landed = { ...candidate, id: 5, created_at: new Date(T0 + 20).toISOString() };
      api.reply('GET', /^\/tasks\?/, 200, page([older]), { headers: date });
      api.reply('POST', '/tasks', 502, '<html>502</html>', { headers: { ...date, 'content-type': 'text/html' } });
      api.reply('GET', /^\/tasks\?/, 200, page([landed, older]), { times: 50, headers: date });
      api.reply('GET', '/tasks/5', 200, withItems(5, ['a.com'], { created_at: landed.created_at }), { times: 5 });
      api.allowUnused();
      const result = await runTaskctl(['create', S, 'a.com', '-q'], { api });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim()).toBe('5');
      expect(result.stderr).toContain('recovered: task 5 was created by this request');
      expect(posts(api)).toBe(1);
    });

    it('then a later chunk’s answer lost: its task found in the window its run learnt from the first answer', async () => {
      const api = mockApi();
      replyServices(api);
      const date = { date: httpDate(T0 + 300_000) };
      const first = { ...candidate, id: 5, created_at: iso(T0) };
      const second = { ...candidate, id: 6, created_at: new Date(T0 + 20).toISOString() };
      api.reply('GET', '/balance', 200, { success: true, data: { balance: 100, currency: 'coins' } });
      api.reply('GET', /^\/tasks\?/, 200, page([]), { headers: date });
      api.reply('POST', '/tasks', 201, created(first), { headers: date });
      api.reply('GET', /^\/tasks\?/, 200, page([first]), { headers: date });
      api.reply('POST', '/tasks', 502, '<html>502</html>', { headers: { ...date, 'content-type': 'text/html' } });
      api.reply('GET', /^\/tasks\?/, 200, page([second, first]), { times: 50, headers: date });
      api.reply('GET', '/tasks/6', 200, withItems(6, ['b.com'], { created_at: second.created_at }), { times: 5 });
      api.allowUnused();
      const argv = ['create', S, 'a.com', 'b.com', '--chunk-size', '1', '-q'];
      const result = await runTaskctl(argv, { api });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim().split('\n')).toEqual(['5', '6']);
      expect(result.stderr).toContain('recovered: task 6 was created by this request');
      expect(posts(api)).toBe(2);
    });

    it.each([
      ['3 s ahead of', 3_000],
      ['3 s behind', -3_000],
    ])(
      'a service clock %s this one, in whole seconds, stamping a second before its last Date: believed',
      async (_, skew) => {
        const api = mockApi();
        replyServices(api);
        api.reply('GET', /^\/tasks\?/, 200, page([]), { headers: { date: httpDate(T0 + skew) } });
        api.reply('POST', '/tasks', 201, created({ id: 5, created_at: iso(T0 + skew - 1000) }));
        const result = await runTaskctl(['create', S, 'a.com', '-q'], { api });
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout.trim()).toBe('5');
        expect(result.stderr).not.toMatch(/may have created/);
      },
    );
  });

  it('an answer that lists other items than were sent: exit 9', async () => {
    const api = answered(withItems(7, ['a.com', 'c.com']).data);
    api.reply('GET', /^\/tasks\?/, 200, page([]), { times: 20 });
    const result = await runTaskctl(['create', S, 'a.com', 'b.com', '-q'], { api });
    expect(result.code, result.stderr).toBe(9);
    expect(result.stderr).toContain(
      'the service answered the create with task 7, which holds other items than were sent',
    );
  });

  it('the task another run on this machine was answered with minutes ago: exit 9 (the local ledger)', async () => {
    const home = mkdtempSync(join(tmpdir(), 'taskctl-answer-'));
    const clock = new FakeClock();
    try {
      const mine = answered({ id: 5 });
      const first = await runTaskctl(['create', S, 'a.com', '-q'], { api: mine, clock, home });
      expect(first.stdout.trim()).toBe('5');
      clock.advance(60_000);
      const api = answered({ id: 5 });
      api.reply('GET', /^\/tasks\?/, 200, page([]), { times: 20 });
      const second = await runTaskctl(['create', S, 'b.com', '-q'], { api, clock, home });
      expect(second.code, second.stderr).toBe(9);
      expect(second.stderr).toContain('task 5, which another taskctl run on this machine created');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  describe('a task id the service gives out again (its ids restarted) is not the claim the ledger holds', () => {
    const later = new Date(T0 + 60_100).toISOString();
    it.each([
      ['created later', { created_at: later }, ['b.com']],
      ['of another size, created later', { total_items: 2, cost: 2, created_at: later }, ['b.com', 'c.com']],
    ])('the 201 names task 5 %s than the task 5 another run claimed: believed', async (_, facts, items) => {
      const home = mkdtempSync(join(tmpdir(), 'taskctl-answer-'));
      const clock = new FakeClock();
      try {
        const first = await runTaskctl(['create', S, 'a.com', '-q'], { api: answered({ id: 5 }), clock, home });
        expect(first.stdout.trim()).toBe('5');
        clock.advance(60_000);
        const api = answered({ id: 5, ...facts });
        const second = await runTaskctl(['create', S, ...items, '-q'], { api, clock, home });
        expect(second.code, second.stderr).toBe(0);
        expect(second.stdout.trim()).toBe('5');
        expect(second.stderr).not.toMatch(/may have created|another taskctl run/);
        expect(posts(api)).toBe(1);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });

    it('a lost answer: the list’s task 5, created after the send, is recovered though an older claim names task 5', async () => {
      const home = mkdtempSync(join(tmpdir(), 'taskctl-answer-'));
      const clock = new FakeClock();
      try {
        const first = await runTaskctl(['create', S, 'a.com', '-q'], { api: answered({ id: 5 }), clock, home });
        expect(first.stdout.trim()).toBe('5');
        clock.advance(60_000);
        const api = start();
        const fresh = { ...candidate, id: 5, created_at: later };
        api.reply('GET', /^\/tasks\?/, 200, page([fresh]), { times: 20 });
        api.reply('GET', '/tasks/5', 200, withItems(5, ['b.com'], { created_at: later }), { times: 5 });
        const second = await runTaskctl(['create', S, 'b.com', '-q'], { api, clock, home });
        expect(second.code, second.stderr).toBe(0);
        expect(second.stdout.trim()).toBe('5');
        expect(second.stderr).toMatch(/recovered: task 5 was created by this request/);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });
  });

  it('another run of this machine names the task between this run’s look at the ledger and its settle: exit 9 (one locked step)', async () => {
    const home = mkdtempSync(join(tmpdir(), 'taskctl-answer-'));
    const file = join(home, 'cache', 'creates.json');
    let answered = false;
    let written = false;
    // The other run writes its claim of task 5 at the first instant the ledger's lock is free once the POST is
    // answered: right after a read that holds no lock, or right before this run takes the lock.
    const otherClaims = () => {
      if (!answered || written) return;
      written = true;
      const { entries } = JSON.parse(readFileSync(file, 'utf8')) as { entries: Array<Record<string, unknown>> };
      const other = { ...entries[0], id: 'other', run: 'other', state: 'created', taskId: 5 };
      writeFileSync(file, JSON.stringify({ version: 1, entries: [...entries, other] }));
    };
    const proto = CreateLedger.prototype as unknown as Record<'read' | 'update', (...args: unknown[]) => unknown>;
    const read = proto.read;
    const update = proto.update;
    vi.spyOn(proto, 'read').mockImplementation(function (this: unknown, ...args: unknown[]) {
      const result = read.apply(this, args);
      if (!existsSync(`${file}.lock`)) otherClaims();
      return result;
    });
    vi.spyOn(proto, 'update').mockImplementation(function (this: unknown, ...args: unknown[]) {
      otherClaims();
      return update.apply(this, args);
    });
    try {
      const api = mockApi();
      replyServices(api);
      replyNoTasks(api);
      api.reply('POST', '/tasks', 201, () => {
        answered = true;
        return created({ id: 5 });
      });
      api.reply('GET', /^\/tasks\?/, 200, page([candidate]), { times: 20 });
      api.allowUnused();
      const result = await runTaskctl(['create', S, 'a.com', '-q'], { api, home });
      expect(written).toBe(true);
      expect(result.code, result.stderr).toBe(9);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('task 5, which another taskctl run on this machine created');
      expect(posts(api)).toBe(1);
    } finally {
      vi.restoreAllMocks();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a chunked job whose second chunk is answered with the first chunk’s task: chunk 2 stays in doubt, and resume adopts its real task without sending it again', async () => {
    const home = mkdtempSync(join(tmpdir(), 'taskctl-answer-'));
    const clock = new FakeClock();
    try {
      const first = { ...candidate, id: 41 };
      const api = mockApi();
      replyServices(api);
      replyNoTasks(api);
      api.reply('GET', /^\/tasks\?/, 200, page([first]), { times: 40 });
      api.reply('POST', '/tasks', 201, created(first), { times: 2 });
      api.allowUnused();
      const result = await runTaskctl(['create', S, 'a.com', 'b.com', '--chunk-size', '1', '-q'], {
        api,
        clock,
        home,
      });
      expect(result.code, result.stderr).toBe(9);
      expect(result.stdout.trim()).toBe('41');
      expect(result.stderr).toContain('task 41, which another chunk of this job already has');
      const job = /taskctl resume (j-[0-9a-z]+)/.exec(result.stderr)?.[1];
      expect(job, result.stderr).toBeDefined();

      const later = mockApi();
      replyServices(later);
      later.reply('GET', /^\/tasks\?/, 200, page([first, { ...candidate, id: 42 }]), { times: 40 });
      later.reply('GET', '/tasks/42', 200, withItems(42, ['b.com']), { times: 5 });
      later.allowUnused();
      const resumed = await runTaskctl(['resume', job!], { api: later, clock, home });
      expect(resumed.code, resumed.stderr).toBe(0);
      // The journal never gave chunk 2 the task its answer named: it was in doubt, settled by the task list.
      expect(resumed.stderr).toMatch(/1 of 2 chunks done, 1 in doubt \(chunk 2\)/);
      expect(resumed.stderr).toMatch(/chunk 2: task 42 was created by the interrupted request/);
      expect(resumed.stderr).toMatch(/✓ 2 tasks for 2 items, 2 coins \(task 42 recovered; 0 by this run\)\n/);
      expect(resumed.stdout).toMatch(/^42\t/);
      expect(posts(later)).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

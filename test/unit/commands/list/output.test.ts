/** `taskctl list` in-process: fitted table with items and ages, --columns, --since/--until. */
import { describe, expect, it } from 'vitest';
import { FakeClock, mockApi, runTaskctl, T0, type MockApi } from '../run-in-process.js';
import { textWidth } from '../../../../src/output/width.js';

const minutesAgo = (m: number) => new Date(T0 - m * 60_000).toISOString();

function task(id: number, createdMinutesAgo: number, extra: Record<string, unknown> = {}) {
  return {
    id,
    service: 'domain_check_availability',
    status: 'completed',
    total_items: 8,
    completed_items: 8,
    failed_items: 0,
    cost: 8,
    created_at: minutesAgo(createdMinutesAgo),
    completed_at: minutesAgo(createdMinutesAgo - 1),
    ...extra,
  };
}

function page(api: MockApi, n: number, totalPages: number, tasks: unknown[], perPage = 25) {
  api.reply('GET', `/tasks?page=${n}&per_page=${perPage}`, 200, {
    success: true,
    data: tasks,
    meta: { current_page: n, total_pages: totalPages, total_count: totalPages * tasks.length, per_page: perPage },
  });
}

const widest = (text: string) => Math.max(...text.split('\n').map((line) => textWidth(line)));

describe('list on a terminal', () => {
  it('fits 80 columns: ages instead of ISO times, an items column with done/total and failed', async () => {
    const api = mockApi();
    page(api, 1, 1, [
      task(12, 3, { completed_items: 7, failed_items: 1, cost: 1234 }),
      task(11, 90, { status: 'processing', completed_items: 2, failed_items: 0, completed_at: null }),
    ]);
    const result = await runTaskctl(['list'], { api, stdoutTTY: true, columns: 80, env: { NO_COLOR: '1' } });
    expect(result.code, result.stderr).toBe(0);
    expect(widest(result.stdout)).toBeLessThanOrEqual(80);
    expect(result.stdout).toMatch(/^ *12 +domain_check_availability +completed +7\/8, 1 failed +1,234 +3m ago/m);
    expect(result.stdout).toMatch(/^ *11 .* processing +2\/8 .*1h ago/m);
    expect(result.stdout).not.toMatch(/\d{4}-\d\d-\d\dT/);
  });

  it('at 60 and 50 columns the service gives way to the items: cut with …, never below 16 columns', async () => {
    const api = mockApi();
    const tasks = [task(12, 3, { completed_items: 7, failed_items: 1 }), task(11, 90, { service: 'email_verify' })];
    page(api, 1, 1, tasks);
    page(api, 1, 1, tasks);
    const sixty = await runTaskctl(['list'], { api, stdoutTTY: true, columns: 60, env: { NO_COLOR: '1' } });
    expect(sixty.code, sixty.stderr).toBe(0);
    expect(widest(sixty.stdout)).toBeLessThanOrEqual(60);
    expect(sixty.stdout).toMatch(/^ *12 +domain_check_avai\S*… +completed +7\/8, 1 failed +3m ago$/m);
    expect(sixty.stdout).toMatch(/^ *11 +email_verify +completed +8\/8 +1h ago$/m);
    expect(sixty.stderr).toBe('2 columns hidden (COST, FINISHED): --wide or -o tsv\n');
    // Too narrow for the items beside 16 columns of it: the items go, and the service is whole again.
    const fifty = await runTaskctl(['list'], { api, stdoutTTY: true, columns: 50, env: { NO_COLOR: '1' } });
    expect(fifty.stdout).toMatch(/^ *12 +domain_check_availability +completed +3m ago$/m);
    expect(fifty.stderr).toBe('3 columns hidden (ITEMS, COST, FINISHED): --wide or -o tsv\n');
  });

  it('colours the items by outcome: a completed task with failed items is yellow, not green', async () => {
    const api = mockApi();
    page(api, 1, 1, [task(12, 3, { completed_items: 7, failed_items: 1 }), task(13, 3)]);
    const result = await runTaskctl(['list'], { api, stdoutTTY: true, columns: 120, env: { FORCE_COLOR: '1' } });
    expect(result.stdout).toContain('\x1b[33m7/8, 1 failed\x1b[39m');
    expect(result.stdout).toContain('\x1b[32m8/8\x1b[39m');
  });

  it('--wide keeps every column whatever the width; machine formats keep ISO times and total_items', async () => {
    const api = mockApi();
    page(api, 1, 1, [task(12, 3)]);
    page(api, 1, 1, [task(12, 3)]);
    const wide = await runTaskctl(['list', '--wide'], { api, stdoutTTY: true, columns: 40, env: { NO_COLOR: '1' } });
    expect(wide.stdout).toMatch(/^ *ID +SERVICE +STATUS +ITEMS +COST +CREATED +FINISHED$/m);
    const tsv = await runTaskctl(['list', '-o', 'tsv'], { api });
    expect(tsv.stdout).toBe(
      `12\tdomain_check_availability\tcompleted\t8\t8\t${minutesAgo(3)}\t${minutesAgo(2)}\t8\t0\n`,
    );
  });

  it('tsv and csv end with the item counts ITEMS shows people, so a script sees failed items; empty when unknown', async () => {
    const api = mockApi();
    const failing = task(12, 3, { completed_items: 7, failed_items: 1 });
    const silent = task(11, 5, { completed_items: undefined, failed_items: undefined });
    page(api, 1, 1, [failing, silent]);
    page(api, 1, 1, [failing, silent]);
    const csv = await runTaskctl(['list', '-o', 'csv'], { api });
    const [header, first, second] = csv.stdout.split('\n');
    expect(header).toBe('id,service,status,total_items,cost,created_at,finished_at,completed_items,failed_items');
    expect(first).toMatch(/^12,.*,7,1$/);
    expect(second).toMatch(/^11,.*,,$/);
    const tsv = await runTaskctl(['list', '-o', 'tsv', '--columns', 'id,failed_items'], { api });
    expect(tsv.stdout).toBe('12\t1\n11\t\n');
  });
});

describe('list --columns', () => {
  it('chooses and orders the columns in tsv, csv and the table', async () => {
    const api = mockApi();
    page(api, 1, 1, [task(12, 3)], 25);
    page(api, 1, 1, [task(12, 3)], 25);
    const csv = await runTaskctl(['list', '--columns', 'status,id', '-o', 'csv'], { api });
    expect(csv.stdout).toBe('status,id\ncompleted,12\n');
    const table = await runTaskctl(['list', '--columns', 'id', '--columns', 'created_at'], {
      api,
      stdoutTTY: true,
      columns: 80,
      env: { NO_COLOR: '1' },
    });
    expect(table.stdout).toBe('ID  CREATED\n12  3m ago\n');
  });

  it('refuses an unknown column with exit 2 and the valid names, before any request', async () => {
    const api = mockApi();
    const result = await runTaskctl(['list', '--columns', 'id,nope'], { api });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/nope/);
    expect(result.stderr).toMatch(/id, service, status, total_items, cost, created_at, finished_at, completed_items/);
    expect(api.calls).toEqual([]);
  });
});

describe("list --all at the service's speed", () => {
  it('asks for 100 a page, and goes at full speed when the server states no rate limit', async () => {
    const api = mockApi();
    const pages = 150; // past the documented 100/min: a limit invented for a silent server would sleep here
    for (let n = 1; n <= pages; n++) page(api, n, pages, [task(1000 - n, 5)], 100);
    const clock = new FakeClock();
    const result = await runTaskctl(['list', '--all', '-o', 'tsv', '--columns', 'id'], { api, clock });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n')).toHaveLength(pages + 1);
    expect(api.calls[0]).toBe('GET /tasks?page=1&per_page=100');
    expect(clock.sleeps).toEqual([]);
    expect(result.stderr).not.toMatch(/waiting/);
  });

  it('keeps an explicit --per-page, and a single page stays at 25', async () => {
    const api = mockApi();
    page(api, 1, 1, [task(1, 5)], 10);
    page(api, 1, 1, [task(1, 5)], 25);
    await runTaskctl(['list', '--all', '--per-page', '10', '-o', 'tsv'], { api });
    await runTaskctl(['list', '-o', 'tsv'], { api });
    expect(api.calls).toEqual(['GET /tasks?page=1&per_page=10', 'GET /tasks?page=1&per_page=25']);
  });

  it('paces by the rate-limit headers when the server sends them', async () => {
    const api = mockApi();
    const pages = 4;
    for (let n = 1; n <= pages; n++) {
      api.reply(
        'GET',
        `/tasks?page=${n}&per_page=100`,
        200,
        {
          success: true,
          data: [task(100 - n, 5)],
          meta: { current_page: n, total_pages: pages, total_count: pages, per_page: 100 },
        },
        {
          headers: {
            'x-ratelimit-limit': '2',
            'x-ratelimit-remaining': String(Math.max(0, 2 - n)),
            'x-ratelimit-reset': '30',
          },
        },
      );
    }
    const clock = new FakeClock();
    const result = await runTaskctl(['list', '--all', '-o', 'tsv'], { api, clock });
    expect(result.code, result.stderr).toBe(0);
    expect(api.calls).toHaveLength(pages);
    expect(clock.sleeps.filter((ms) => ms >= 30_000).length).toBeGreaterThan(0);
  });
});

describe('list --since / --until', () => {
  it('walks pages newest first and stops at the first page older than the window', async () => {
    const api = mockApi();
    page(api, 1, 5, [task(10, 1), task(9, 20)], 2);
    page(api, 2, 5, [task(8, 50), task(7, 70)], 2);
    page(api, 3, 5, [task(6, 80), task(5, 90)], 2);
    const result = await runTaskctl(
      ['list', '--since', '1h', '--all', '--per-page', '2', '-o', 'tsv', '--columns', 'id'],
      { api },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('10\n9\n8\n');
    expect(api.calls).toEqual([
      'GET /tasks?page=1&per_page=2',
      'GET /tasks?page=2&per_page=2',
      'GET /tasks?page=3&per_page=2',
    ]);
  });

  it('walks every page when the order is not newest first, and filters', async () => {
    const api = mockApi();
    page(api, 1, 3, [task(1, 300), task(2, 200)], 2);
    page(api, 2, 3, [task(3, 100), task(4, 10)], 2);
    page(api, 3, 3, [task(5, 5), task(6, 500)], 2);
    const result = await runTaskctl(['list', '--since', '1h', '--per-page', '2', '-o', 'tsv', '--columns', 'id'], {
      api,
    });
    expect(result.stdout).toBe('4\n5\n');
    expect(api.calls).toHaveLength(3);
  });

  it('--until keeps tasks created at least that long ago; an ISO time works as an edge', async () => {
    const api = mockApi();
    page(api, 1, 1, [task(3, 5), task(2, 90), task(1, 200)], 100);
    page(api, 1, 1, [task(3, 5), task(2, 90), task(1, 200)], 100);
    const until = await runTaskctl(['list', '--until', '1h', '-o', 'tsv', '--columns', 'id'], { api });
    expect(until.stdout).toBe('2\n1\n');
    const since = await runTaskctl(['list', '--since', minutesAgo(100), '-o', 'tsv', '--columns', 'id'], { api });
    expect(since.stdout).toBe('3\n2\n');
  });

  it('a date alone is its midnight UTC: --since takes that day on, --until ends before it; a day that is not is exit 2', async () => {
    const api = mockApi();
    // 12:00 UTC on 2025-01-15, less 5 minutes, 90 minutes, and 33 hours (2025-01-14T03:00Z).
    page(api, 1, 1, [task(3, 5), task(2, 90), task(1, 33 * 60)], 100);
    page(api, 1, 1, [task(3, 5), task(2, 90), task(1, 33 * 60)], 100);
    const since = await runTaskctl(['list', '--since', '2025-01-15', '-o', 'tsv', '--columns', 'id'], { api });
    expect(since.stdout, since.stderr).toBe('3\n2\n');
    const until = await runTaskctl(['list', '--until', '2025-01-15', '-o', 'tsv', '--columns', 'id'], { api });
    expect(until.stdout, until.stderr).toBe('1\n');
    const wrong = await runTaskctl(['list', '--since', '2025-02-30'], { api: mockApi() });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/a date \(2025-01-15, midnight UTC\)/);
  });

  it('an ISO time without seconds, with its zone, is an edge too (Z, +02:00); a day the month lacks is exit 2', async () => {
    const api = mockApi();
    page(api, 1, 1, [task(3, 5), task(2, 90), task(1, 200)], 100);
    page(api, 1, 1, [task(3, 5), task(2, 90), task(1, 200)], 100);
    // 100 minutes before T0 (12:00Z): 10:20Z, which is 12:20 at +02:00.
    const zulu = await runTaskctl(['list', '--since', '2025-01-15T10:20Z', '-o', 'tsv', '--columns', 'id'], { api });
    expect(zulu.stdout, zulu.stderr).toBe('3\n2\n');
    const offset = await runTaskctl(['list', '--since', '2025-01-15T12:20+02:00', '-o', 'tsv', '--columns', 'id'], {
      api,
    });
    expect(offset.stdout, offset.stderr).toBe('3\n2\n');
    for (const text of ['2025-02-30T00:00:00Z', '2025-02-30T00:00Z']) {
      const wrong = await runTaskctl(['list', '--since', text], { api: mockApi() });
      expect(wrong.code, text).toBe(2);
      expect(wrong.stderr).toMatch(/an ISO time with its zone/);
    }
  });

  it("an ISO time needs its zone: one without is exit 2, not read as this machine's local time", async () => {
    const result = await runTaskctl(['list', '--since', '2025-01-15T12:00:00'], { api: mockApi() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/an ISO time with its zone \(2025-01-15T12:00:00Z\)/);
  });

  it('refuses a bad duration with exit 2', async () => {
    const result = await runTaskctl(['list', '--since', 'yesterday'], { api: mockApi() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--since/);
  });

  it('refuses a window that ends before it starts, before any request', async () => {
    const api = mockApi();
    const result = await runTaskctl(['list', '--since', '1h', '--until', '2h'], { api });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--since is later than --until/);
    expect(api.calls).toEqual([]);
  });
});

describe('the paging hint (quiet stderr for scripts)', () => {
  it('a person at a terminal is told about the next page', async () => {
    const api = mockApi();
    page(api, 1, 3, [task(12, 3)]);
    const result = await runTaskctl(['list'], { api, stdoutTTY: true, columns: 80, env: { NO_COLOR: '1' } });
    expect(result.stderr).toBe('page 1 of 3; use --page 2 or --all for more\n');
  });

  it('a script gets nothing on stderr, and neither does a --limit that was reached', async () => {
    const api = mockApi();
    page(api, 1, 3, [task(12, 3)], 25);
    const script = await runTaskctl(['list'], { api });
    expect(script.code).toBe(0);
    expect(script.stderr).toBe('');
    const limited = mockApi();
    page(limited, 1, 3, [task(12, 3), task(11, 4)], 25);
    const result = await runTaskctl(['list', '--limit', '1'], {
      api: limited,
      stdoutTTY: true,
      columns: 80,
      env: { NO_COLOR: '1' },
    });
    expect(result.stderr).toBe('');
  });
});

describe('--status words for a group (every error names the next step)', () => {
  it('succeeded is answered with the flag that asks for completed tasks, not "did you mean"', async () => {
    const result = await runTaskctl(['list', '--status', 'succeeded'], { api: mockApi() });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(/did you mean/);
    expect(result.stderr).toMatch(/For completed tasks, use --status completed\./);
  });
});

describe('filters search the list', () => {
  const failed = (id: number) => task(id, 5, { status: 'failed', completed_items: 0, failed_items: 8 });

  it('list --status failed finds a failed task on page 2, in a table and in tsv alike', async () => {
    const api = mockApi();
    for (let run = 0; run < 2; run++) {
      page(api, 1, 3, [task(30, 1), task(29, 2)], 100);
      page(api, 2, 3, [failed(28), task(27, 4)], 100);
      page(api, 3, 3, [task(26, 6)], 100);
    }
    const table = await runTaskctl(['list', '--status', 'failed'], {
      api,
      stdoutTTY: true,
      columns: 120,
      env: { NO_COLOR: '1' },
    });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^ *28 +domain_check_availability +failed /m);
    expect(table.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(table.stderr).toBe('');
    const tsv = await runTaskctl(['list', '--status', 'failed', '-o', 'tsv', '--columns', 'id'], { api });
    expect(tsv.stdout).toBe('28\n');
    expect(tsv.stderr).toBe('');
  });

  it('stops at one page worth of matches (--per-page, else 25) and says how to get more, to scripts too', async () => {
    const api = mockApi();
    page(api, 1, 5, [failed(10), failed(9)], 2);
    page(api, 1, 5, [failed(10), failed(9)], 2);
    const tsv = await runTaskctl(['list', '--status', 'failed', '--per-page', '2', '-o', 'tsv', '--columns', 'id'], {
      api,
    });
    expect(tsv.stdout).toBe('10\n9\n');
    expect(tsv.stderr).toBe(
      'stopped at 2 matching tasks (page 1 of 5 searched); use --limit N for more, or --all for every match\n',
    );
    const table = await runTaskctl(['list', '--status', 'failed', '--per-page', '2', '--columns', 'id'], {
      api,
      stdoutTTY: true,
      columns: 80,
      env: { NO_COLOR: '1' },
    });
    expect(table.stdout).toBe('ID\n10\n 9\n');
    expect(table.stderr).toMatch(/^stopped at 2 matching tasks/);
  });

  it('the default limit is 25 matches; an explicit --limit wins (and a script that set it is told nothing)', async () => {
    const api = mockApi();
    const many = Array.from({ length: 30 }, (_, i) => failed(100 - i));
    page(api, 1, 2, many, 100);
    page(api, 1, 2, many, 100);
    const byDefault = await runTaskctl(['list', '--status', 'failed', '-o', 'tsv', '--columns', 'id'], { api });
    expect(byDefault.stdout.trimEnd().split('\n')).toHaveLength(25);
    const limited = await runTaskctl(['list', '--status', 'failed', '--limit', '3', '-o', 'tsv', '--columns', 'id'], {
      api,
    });
    expect(limited.stdout).toBe('100\n99\n98\n');
    expect(limited.stderr).toBe('');
  });

  it('--limit past one page reads on until it is met: 60 asked, 60 printed (pages of 100, one request)', async () => {
    const api = mockApi();
    page(
      api,
      1,
      2,
      Array.from({ length: 100 }, (_, i) => task(200 - i, i + 1)),
      100,
    );
    const result = await runTaskctl(['list', '--limit', '60', '-o', 'tsv', '--columns', 'id'], { api });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(60);
    expect(api.calls).toEqual(['GET /tasks?page=1&per_page=100']);
    expect(result.stderr).toBe('');
  });

  it('--limit 60 --per-page 25: three pages, the third cut at the limit; on a terminal nothing more to say', async () => {
    const api = mockApi();
    for (const n of [1, 2, 3])
      page(
        api,
        n,
        5,
        Array.from({ length: 25 }, (_, i) => task(200 - 25 * n - i, i + 1)),
      );
    const result = await runTaskctl(['list', '--limit', '60', '--per-page', '25'], {
      api,
      stdoutTTY: true,
      stderrTTY: true,
      columns: 120,
      env: { NO_COLOR: '1' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(61);
    expect(api.calls).toHaveLength(3);
    expect(result.stderr).not.toMatch(/use --page/);
  });

  it('--all removes the limit; the search starts at --page', async () => {
    const api = mockApi();
    const many = Array.from({ length: 30 }, (_, i) => failed(100 - i));
    page(api, 2, 3, many.slice(0, 15), 100);
    page(api, 3, 3, many.slice(15), 100);
    const all = await runTaskctl(['list', '--status', 'failed', '--all', '--page', '2', '-o', 'tsv'], { api });
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.trimEnd().split('\n')).toHaveLength(30);
    expect(api.calls).toEqual(['GET /tasks?page=2&per_page=100', 'GET /tasks?page=3&per_page=100']);
  });

  it('--service searches too, paced by the rate-limit headers like --all', async () => {
    const api = mockApi();
    const pages = 4;
    for (let n = 1; n <= pages; n++) {
      api.reply(
        'GET',
        `/tasks?page=${n}&per_page=100`,
        200,
        {
          success: true,
          data: [task(100 - n, 5, n === pages ? { service: 'email_verify' } : {})],
          meta: { current_page: n, total_pages: pages, total_count: pages, per_page: 100 },
        },
        {
          headers: {
            'x-ratelimit-limit': '2',
            'x-ratelimit-remaining': String(Math.max(0, 2 - n)),
            'x-ratelimit-reset': '30',
          },
        },
      );
    }
    const clock = new FakeClock();
    const result = await runTaskctl(['list', '--service', 'email_verify', '-o', 'tsv', '--columns', 'id'], {
      api,
      clock,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('96\n');
    expect(clock.sleeps.filter((ms) => ms >= 30_000).length).toBeGreaterThan(0);
  });

  it('has no page cap: a match past page 1,000 is found (the guard against endless pages stays)', async () => {
    const api = mockApi();
    const pages = 1002;
    // One reply answering each page by its number (1,002 replies, one a page, cost ~0.7 s of MockAgent's matching).
    const pageOf = (path: string) => {
      const n = Number(/[?&]page=(\d+)/.exec(path)?.[1]);
      const tasks = [n === pages ? failed(1) : task(5000 - n, 5)];
      const meta = { current_page: n, total_pages: pages, total_count: pages, per_page: 100 };
      return { success: true, data: tasks, meta };
    };
    api.reply('GET', /^\/tasks\?page=\d+&per_page=100$/, 200, pageOf, { times: pages });
    const result = await runTaskctl(['list', '--status', 'failed', '-o', 'tsv', '--columns', 'id'], {
      api,
      clock: new FakeClock(),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('1\n');
    // Every page asked for once, in order.
    expect(api.calls).toEqual(Array.from({ length: pages }, (_, i) => `GET /tasks?page=${i + 1}&per_page=100`));
  });
});

describe('list: a page past the end', () => {
  it('--page 9 of 3 names the page count and the way back, instead of a bare "No results."', async () => {
    const api = mockApi();
    page(api, 9, 3, []);
    const result = await runTaskctl(['list', '--page', '9'], { api, stdoutTTY: true, env: { NO_COLOR: '1' } });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('No results: page 9 is past the end (the list has 3 pages); use --page 3 or --all.\n');
  });
});

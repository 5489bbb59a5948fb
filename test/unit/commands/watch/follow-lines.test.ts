/** `watch` in-process (colours kept, server controls neutralised; pages that never end). */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../../../src/sandbox/index.js';
import type { RunningSandbox } from '../../../../src/sandbox/index.js';
import { FakeClock, mockApi, runTaskctl } from '../run-in-process.js';

const task = (id: number, status: string) => ({
  id,
  service: 'domain_check_availability',
  status,
  total_items: 1,
  cost: 1,
  created_at: '2025-01-15T12:00:00Z',
});

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('watch: human lines', () => {
  it('keeps its colours and neutralises control characters that came from the server', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/7', 200, { success: true, data: { ...task(7, 'processing'), items: [] } });
    api.reply('GET', '/tasks/7', 200, {
      success: true,
      data: { ...task(7, 'odd\x1b[2Jstate'), completed_at: '2025-01-15T12:00:09Z', items: [] },
    });
    const result = await runTaskctl(['watch', '7'], { api, stdoutTTY: true, env: { FORCE_COLOR: '1' } });
    expect(result.stdout).toContain('\x1b[33mprocessing\x1b[39m');
    expect(result.stdout).not.toContain('\\x1b[33m');
    expect(result.stdout).toContain('odd\\x1b[2Jstate');
    expect(result.stdout).not.toContain('\x1b[2J');
  });

  it('shows item counts as they move; -o ndjson still gives one event per status, like a webhook', async () => {
    const clock = new FakeClock();
    sandbox = await startSandbox({ port: 0, clock, itemMs: 200, rateLimit: 100, seed: 1 });
    const env = { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey };
    const items = Array.from({ length: 50 }, (_, i) => `w${i}.example.com`);
    const created = await runTaskctl(['create', 'domain_check_availability', ...items, '-q'], { clock, env });
    const id = created.stdout.trim();
    const human = await runTaskctl(['watch', id, '-o', 'table'], { clock, env });
    const counts = new Set(
      human.stdout
        .split('\n')
        .map((line) => / (\d+)\/50/.exec(line)?.[1])
        .filter(Boolean),
    );
    expect(counts.size).toBeGreaterThanOrEqual(3);
    const second = await runTaskctl(['create', 'domain_check_availability', ...items, '-q'], { clock, env });
    const events = await runTaskctl(['watch', second.stdout.trim(), '-o', 'ndjson'], { clock, env });
    const kinds = events.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { event: string }).event);
    expect(kinds).toEqual(['processing', 'completed']);
  });
});

describe('watch: pages that never end', () => {
  it('a listing whose total_pages grows on every read ends with exit 8 and a message', async () => {
    const api = mockApi();
    for (let page = 1; page <= 40; page++) {
      const tasks = Array.from({ length: 100 }, (_, i) => task(page * 1000 + i, 'processing'));
      api.reply('GET', new RegExp(`^/tasks\\?(.*&)?page=${page}(&|$)`), 200, {
        success: true,
        data: tasks,
        meta: { current_page: page, per_page: 100, total_pages: page + 1, total_count: 100 * (page + 1) },
      });
    }
    // 40 pages offered; the walk must stop well before them (the last assertion).
    api.allowUnused();
    const result = await runTaskctl(['watch'], { api });
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(/pages do not end \(total_pages grew from 2 to \d+/);
    // Its next step names no flag watch does not have.
    expect(result.stderr).toMatch(/try again later\.\n$/);
    expect(result.stderr).not.toMatch(/--limit|--page/);
    expect(api.calls.length).toBeLessThan(15);
  });
});

describe('watch: finding the unfinished tasks', () => {
  it('without ids on a long task list: one line says what the wait is for before the pages are read', async () => {
    const api = mockApi();
    for (let page = 1; page <= 3; page++) {
      api.reply('GET', new RegExp(`^/tasks\\?(.*&)?page=${page}(&|$)`), 200, {
        success: true,
        data: [task(page, 'completed')],
        meta: { current_page: page, per_page: 100, total_pages: 3, total_count: 3 },
      });
    }
    const result = await runTaskctl(['watch'], { api, stdoutTTY: true });
    expect(result.code, result.stderr).toBe(0);
    // Without a terminal on stderr no spinner tells the pages: one line, then what was found.
    expect(result.stderr).toBe(
      'finding unfinished tasks: reading the 3 pages of the task list\n' +
        'no unfinished tasks: nothing to watch (`taskctl watch --follow` waits for new ones)\n',
    );
  });

  it('says the number of pages with its thousands separators, as every count a person reads', async () => {
    const api = mockApi();
    // The list said 1,500 pages, then shrank to 2 while it was read: the line was written from page 1's figure.
    for (const [page, pages] of [
      [1, 1500],
      [2, 2],
    ] as const) {
      api.reply('GET', new RegExp(`^/tasks\\?(.*&)?page=${page}(&|$)`), 200, {
        success: true,
        data: [task(page, 'completed')],
        meta: { current_page: page, per_page: 100, total_pages: pages, total_count: 100 * pages },
      });
    }
    const result = await runTaskctl(['watch'], { api, stdoutTTY: true });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^finding unfinished tasks: reading the 1,500 pages of the task list\n/);
  });
});

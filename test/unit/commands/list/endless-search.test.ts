/**
 * `list --status` against a server whose list never ends: `total_pages` huge and constant, every page ids never seen.
 * A search has no page cap (docs/commands.md#taskctl-list), so it reads on until Ctrl-C; what it holds meanwhile is
 * bounded (the page guard's window), and Ctrl-C says how far it got.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BASE_URL, FakeClock, mockApi, runTaskctl, T0 } from '../run-in-process.js';
import { PageWalkGuard, REMEMBERED_IDS } from '../../../../src/lib/page-guard.js';

const TOTAL_PAGES = 1_000_000_000;
/** Tasks a page: what `per_page=100` asks for. */
const SIZE = 100;

/** Page n of the endless list: SIZE completed tasks with ids never used before (none matches `--status failed`). */
function endlessPage(n: number) {
  const data = Array.from({ length: SIZE }, (_, i) => ({
    id: 1e12 - (n * SIZE + i),
    service: 'email_verify',
    status: 'completed',
    total_items: 1,
    cost: 1,
    created_at: new Date(T0 - n * 60_000).toISOString(),
    completed_at: new Date(T0 - n * 60_000 + 1000).toISOString(),
  }));
  return {
    success: true,
    data,
    meta: { current_page: n, total_pages: TOTAL_PAGES, total_count: TOTAL_PAGES * SIZE, per_page: 100 },
  };
}

/** The endless list, with Ctrl-C pressed while page `at` is asked for (its answer never counts). */
function ctrlCAtPage(at: number) {
  const controller = new AbortController();
  const api = mockApi();
  api.reply(
    'GET',
    /^\/tasks\?page=\d+&per_page=100$/,
    200,
    (path: string) => {
      const n = Number(/[?&]page=(\d+)/.exec(path)?.[1]);
      if (n === at) controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError' }));
      return endlessPage(n);
    },
    { times: at },
  );
  return { api, controller };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('list --status over a list that never ends', () => {
  it('holds at most the guard window of ids however many pages it reads, and Ctrl-C says how far it got', async () => {
    // One page past the guard's window (REMEMBERED_IDS, 10,000 ids): 10,100 ids read, the first 100 forgotten.
    const pages = REMEMBERED_IDS / SIZE + 1;
    const { api, controller } = ctrlCAtPage(pages + 1);
    // The guards of the run, seen through their calls (each call still runs the guard's own code).
    const accept = vi.spyOn(PageWalkGuard.prototype, 'accept');
    const result = await runTaskctl(['list', '--status', 'failed', '-o', 'tsv'], {
      api,
      clock: new FakeClock(),
      signal: controller.signal,
    });
    expect(result.code, result.stderr).toBe(130);
    expect(api.calls).toHaveLength(pages + 1);
    const guards = new Set(accept.mock.contexts as Array<PageWalkGuard<{ id: number }>>);
    expect(accept).toHaveBeenCalledTimes(pages);
    // One guard, holding the last 10,000 ids of the 10,100 read (it only grows until full, then stays there).
    expect([...guards].map((guard) => guard.remembered)).toEqual([REMEMBERED_IDS]);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'error: interrupted: pages 1-101 of 1,000,000,000 searched, 0 matching tasks found\n' +
        'Go on from there: taskctl list --status failed --page 102 -o tsv\n',
    );
  });

  it('Ctrl-C in `list --all` counts the tasks listed; before the first page is read, that nothing changed', async () => {
    const all = ctrlCAtPage(3);
    const walk = await runTaskctl(['list', '--all', '-o', 'tsv', '--columns', 'id'], {
      api: all.api,
      signal: all.controller.signal,
    });
    expect(walk.code).toBe(130);
    expect(walk.stdout.trimEnd().split('\n')).toHaveLength(200);
    expect(walk.stderr).toBe(
      'error: interrupted: pages 1-2 of 1,000,000,000 read, 200 tasks listed\n' +
        'Go on from there: taskctl list --all --page 3 --columns id -o tsv\n',
    );

    const first = ctrlCAtPage(1);
    const none = await runTaskctl(['list', '--status', 'failed'], { api: first.api, signal: first.controller.signal });
    expect(none.code).toBe(130);
    expect(none.stderr).toBe('error: interrupted\nNothing was changed; run the same command again.\n');
  });

  it("Ctrl-C's hint is the whole command again from the next page: every filter, the window as instants, the limit left", async () => {
    const { api, controller } = ctrlCAtPage(4);
    const result = await runTaskctl(
      [
        ...['list', '--status', 'failed,pending', '--service', 'email_verify', '--since', '1h', '--until', '10m'],
        ...['--limit', '30', '--page', '1', '--per-page', '100', '--wide', '--base-url', BASE_URL],
      ],
      { api, clock: new FakeClock(), signal: controller.signal, env: { TASKCTL_BASE_URL: undefined } },
    );
    expect(result.code, result.stderr).toBe(130);
    const since = new Date(T0 - 3_600_000).toISOString();
    const until = new Date(T0 - 600_000).toISOString();
    expect(result.stderr.split('\n').slice(-2)).toEqual([
      `Go on from there: taskctl --base-url ${BASE_URL} list --status failed,pending --service email_verify ` +
        `--since ${since} --until ${until} --limit 30 --page 4 --per-page 100 --wide`,
      '',
    ]);
  });
});

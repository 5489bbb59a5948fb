/**
 * `--reuse-window` on a busy account whose tasks are of the create's own service and size: each such task is a
 * candidate the list cannot tell apart (GET /tasks lists no items), so its items are read with GET /tasks/:id. Those
 * reads are bounded (the 100 newest candidates a lookup): a match among them is reused, and when none matches and
 * older candidates are left unread, nothing is sent (exit 9, never "none found, send", which could pay twice), saying
 * what was read and a window those reads cover. A long lookup says what it is doing and how to skip it. A walk its
 * page bound stopped short reads the candidates it listed (a match there is used); and each chunk of a run is judged
 * by what was looked at for its own window.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { FakeClock, mockApi, replyServices, runTaskctl, type MockApi } from '../run-in-process.js';
import { busyTask, replyBusyList, replyCreates, type BusyList } from '../busy-list.js';

const S = 'domain_check_availability';

/** The busy list, a task of S every `every` positions (the others of another service), each holding `f<id>.com` but where `holding` says otherwise. */
function replyAccount(
  api: MockApi,
  every: number,
  holding: Record<number, string> = {},
  more: Pick<BusyList, 'onRead' | 'listed' | 'quietFirst'> = {},
): void {
  replyServices(api);
  api.reply('GET', '/balance', 200, { success: true, data: { balance: 1000, currency: 'coins' } }, { times: 10 });
  replyBusyList(api, {
    ...more,
    service: (n) => (n % every === 0 ? S : 'email_validation'),
    items: (n) => [holding[n] ?? `f${busyTask(n).id}.com`],
  });
  replyCreates(api, S);
}

/** A read of the task at position `at` that takes `ms` (the first one: it is read again before it is reused). */
function slowAt(at: number, ms: number, clock: FakeClock): (n: number) => void {
  let slow = true;
  return (n) => {
    if (n !== at || !slow) return;
    slow = false;
    clock.advance(ms);
  };
}

const reads = (api: MockApi) => api.calls.filter((call) => /^GET \/tasks\/\d+$/.test(call));
const posts = (api: MockApi) => api.calls.filter((call) => call.startsWith('POST'));

it('a window the list covers, holding 192 same-size tasks: the 100 newest are read, then exit 9 with a window they cover', async () => {
  const api = mockApi();
  api.allowUnused();
  replyAccount(api, 5);
  const result = await runTaskctl(['create', S, 'a.com', '--reuse-window', '30m', '-y'], {
    api,
    clock: new FakeClock(),
  });
  expect(result.code, result.stderr).toBe(9);
  expect(posts(api)).toEqual([]);
  expect(reads(api)).toHaveLength(100);
  // What it is doing, before the reads, and how to skip it.
  expect(result.stderr).toMatch(
    /^looking at 192 tasks of this service and size made in the last 30m for the items of the task: reading up to 100 of them, newest first \(a shorter --reuse-window, or none, skips this\)\n/,
  );
  // The 100 newest reach back to position 495 (991 s before T0); the next one is 1,001 s old.
  expect(result.stderr).toMatch(
    /error: --reuse-window 30m: too many tasks to search: of the 192 tasks of this service and size made in the window, the 100 newest \(back to 2025-01-15T11:43:29Z\) were read and hold none of these items, so nothing was sent for the task \(its items may have a task among the 92 older ones\)/,
  );
  const minutes = Number(/Re-run with --reuse-window (\d+)m, a window the reads cover; /.exec(result.stderr)?.[1]);
  expect(minutes).toBeGreaterThan(0);
  expect(minutes).toBeLessThan(17);
  expect(result.stderr).toMatch(/Or re-run without --reuse-window to create without looking\./);
});

it("the job's resume, which keeps the job's window, names --no-reuse as the way to skip the lookup (no flag keeps it)", async () => {
  const home = mkdtempSync(join(tmpdir(), 'taskctl-reuse-reads-'));
  try {
    const api = mockApi();
    api.allowUnused();
    // The account quiet at chunk 1's lookup (it is sent), busy from chunk 2's.
    replyAccount(api, 5, {}, { quietFirst: 1 });
    const clock = new FakeClock();
    const argv = ['create', S, 'a.com', 'b.com', '--chunk-size', '1', '--reuse-window', '30m', '-y'];
    const created = await runTaskctl(argv, { api, clock, home });
    expect(created.code, created.stderr).toBe(9);
    expect(posts(api)).toHaveLength(1);
    const job = /job (j-[0-9a-z]+)/.exec(created.stderr)?.[1] ?? '';
    const resumed = await runTaskctl(['resume', job, '-y'], { api, clock, home });
    expect(resumed.code, resumed.stderr).toBe(9);
    expect(resumed.stderr).toContain('newest first (a shorter --reuse-window, or --no-reuse, skips this)\n');
    expect(resumed.stderr).toContain(`taskctl resume ${job} --yes --no-reuse`);
    expect(posts(api)).toHaveLength(1);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

it('a match among the 100 newest candidates is reused after reading down to it', async () => {
  const api = mockApi();
  api.allowUnused();
  replyAccount(api, 5, { 200: 'a.com' });
  const result = await runTaskctl(['create', S, 'a.com', '--reuse-window', '30m', '-y'], {
    api,
    clock: new FakeClock(),
  });
  expect(result.code, result.stderr).toBe(0);
  expect(posts(api)).toEqual([]);
  expect(result.stderr).toMatch(/reusing task 4800: same service and items/);
  // Positions 0, 5, …, 200, each read once (the match read now is the one reused).
  expect(reads(api)).toHaveLength(41);
});

it('a walk its page bound stopped short reads the candidates it listed: a match among them is reused', async () => {
  const api = mockApi();
  api.allowUnused();
  replyAccount(api, 10, { 300: 'a.com' });
  const result = await runTaskctl(['create', S, 'a.com', '--reuse-window', '1h', '-y'], {
    api,
    clock: new FakeClock(),
  });
  expect(result.code, result.stderr).toBe(0);
  expect(posts(api)).toEqual([]);
  expect(api.calls.filter((call) => call.startsWith('GET /tasks?'))).toHaveLength(10);
  expect(result.stderr).toMatch(/reusing task 4700: same service and items/);
});

it('a walk its page bound stopped short, none of the listed candidates a match: exit 9 once they are read', async () => {
  const api = mockApi();
  api.allowUnused();
  replyAccount(api, 10);
  const result = await runTaskctl(['create', S, 'a.com', '--reuse-window', '1h', '-y'], {
    api,
    clock: new FakeClock(),
  });
  expect(result.code, result.stderr).toBe(9);
  expect(posts(api)).toEqual([]);
  // The 100 candidates the 10 pages listed, each read once.
  expect(reads(api)).toHaveLength(100);
  expect(result.stderr).toMatch(
    /the task list is too long to search: the 10 pages read \(1,000 tasks\) reach back only to 2025-01-15T11:26:41Z/,
  );
});

it('chunk 2 is judged by its own window: one the pages read cover by then is searched, its items sent', async () => {
  const api = mockApi();
  api.allowUnused();
  const clock = new FakeClock();
  // Chunk 1's match is at position 50; reading it takes five minutes (a slow service, rate-limit waits), so chunk 2's
  // window, 35m back from then, starts after the oldest task the 10 pages showed (1,999 s before T0).
  replyAccount(api, 10, { 50: 'a.com' }, { onRead: slowAt(50, 5 * 60_000, clock) });
  const result = await runTaskctl(['create', S, 'a.com', 'b.com', '--chunk-size', '1', '--reuse-window', '35m', '-y'], {
    api,
    clock,
  });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toMatch(/reusing task 4950/);
  expect(posts(api)).toHaveLength(1);
});

it("chunk 2's refusal names its own window's start, not chunk 1's", async () => {
  const api = mockApi();
  api.allowUnused();
  const clock = new FakeClock();
  // One minute passes at chunk 1's match: chunk 2's window still reaches past the 10 pages, by a minute less.
  replyAccount(api, 10, { 50: 'a.com' }, { onRead: slowAt(50, 60_000, clock) });
  const result = await runTaskctl(['create', S, 'a.com', 'b.com', '--chunk-size', '1', '--reuse-window', '35m', '-y'], {
    api,
    clock,
  });
  expect(result.code, result.stderr).toBe(9);
  expect(posts(api)).toEqual([]);
  expect(result.stderr).toMatch(/nothing was sent for chunk 2 of 2/);
  // Chunk 2's window starts 35m (and 2m for the unknown server clock) before T0 + 1m.
  expect(result.stderr).toContain("made between 2025-01-15T11:24:00Z, the 35m window's start");
});

it('same-size tasks the list shows completed with a failed item are no candidates: none is read, the create sends', async () => {
  const api = mockApi();
  api.allowUnused();
  replyAccount(api, 5, {}, { listed: () => ({ completed_items: 0, failed_items: 1 }) });
  const result = await runTaskctl(['create', S, 'a.com', '--reuse-window', '30m', '-y'], {
    api,
    clock: new FakeClock(),
  });
  expect(result.code, result.stderr).toBe(0);
  expect(reads(api)).toEqual([]);
  expect(posts(api)).toHaveLength(1);
  expect(result.stderr).not.toMatch(/looking at/);
});

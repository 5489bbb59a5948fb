/**
 * The rate limit holding a wait's reads (the create before it spent the budget) is said as the client's own waits for
 * it are: `waiting 31s for the rate limit (…)…`, a line on stderr in a script, the live block's text on a terminal;
 * `-q` keeps only a wait over 5 s. `create --wait`, `retry --wait` and `wait --job` share the wait loop.
 */
import { describe, expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { FakeClock } from '../../../clock.js';
import { mockApi, replyNoTasks, replyServices, runTaskctl, type MockApi } from '../run-in-process.js';

const S = 'domain_check_availability';

/** A create whose POST answer spends the window (reset in `resetS` s); the task is done at its first read. */
function spentByCreate(resetS: number, limit = 6): MockApi {
  const api = mockApi();
  replyServices(api);
  replyNoTasks(api);
  api.reply(
    'POST',
    '/tasks',
    201,
    { success: true, data: task(12, { status: 'pending', completed_at: null }) },
    {
      headers: {
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(resetS),
      },
    },
  );
  api.reply('GET', '/tasks/12', 200, { success: true, data: task(12, { completed_items: 1, failed_items: 0 }) });
  return api;
}

describe('a wait held by the rate limit says so', () => {
  it('create --wait in a script: one stderr line before the held read, naming the rate limit', async () => {
    const clock = new FakeClock();
    const result = await runTaskctl(['create', S, 'a.com', '--wait', '-o', 'tsv'], { api: spentByCreate(30), clock });
    expect(result.code, result.stderr).toBe(0);
    // The reset is 30 s away, plus the limiter's 1 s margin for whole-second reset values.
    expect(clock.sleeps).toEqual([31_000]);
    const lines = result.stderr.split('\n');
    const said = lines.filter((line) => line.includes('for the rate limit'));
    expect(said).toEqual(['waiting 31s for the rate limit (6 requests a window)…']);
    // Before the task's line, which the held read brought.
    expect(lines.indexOf(said[0] ?? '')).toBeLessThan(lines.findIndex((line) => line.includes('task 12 completed')));
    expect(result.stdout).not.toMatch(/rate limit/);
  });

  it('create --wait on a terminal: the live block says it in place of a bare "reading"', async () => {
    const result = await runTaskctl(['create', S, 'a.com', '--wait', '--no-results'], {
      api: spentByCreate(30),
      stderrTTY: true,
      columns: 80,
      env: { NO_COLOR: '1' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/reading task 12: waiting 31s for the rate limit \(6 requests a window\)…/);
    // Not a line of its own in the scrollback as well.
    expect(result.stderr).not.toMatch(/^waiting 31s/m);
  });

  it('-q keeps a held read of 5 s or less off stderr, and says a longer one in one line', async () => {
    const short = await runTaskctl(['create', S, 'a.com', '--wait', '-q'], { api: spentByCreate(3) });
    expect(short.code, short.stderr).toBe(0);
    // -q keeps the line naming the job (the identifier a stopped run goes on with), and nothing else.
    expect(short.stderr).toMatch(/^job j-[0-9a-z]+: taskctl jobs\n$/);
    const long = await runTaskctl(['create', S, 'a.com', '--wait', '-q'], { api: spentByCreate(30) });
    expect(long.code, long.stderr).toBe(0);
    expect(long.stderr).toMatch(
      /^job j-[0-9a-z]+: taskctl jobs\nwaiting 31s for the rate limit \(6 requests a window\)…\n$/,
    );
    expect(long.stdout).toBe('12\n');
  });

  it('a hold of 2 s or less is not said', async () => {
    const clock = new FakeClock();
    const result = await runTaskctl(['create', S, 'a.com', '--wait', '-o', 'tsv'], { api: spentByCreate(1), clock });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/rate limit/);
  });

  it('wait: a read whose answer spends the budget holds the next round, said once before it', async () => {
    const api = mockApi();
    const spent = { 'x-ratelimit-limit': '6', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' };
    const processing = task(12, { status: 'processing', completed_at: null, completed_items: 0, failed_items: 0 });
    api.reply('GET', '/tasks/12', 200, { success: true, data: processing }, { headers: spent });
    api.reply('GET', '/tasks/12', 200, { success: true, data: task(12, { completed_items: 1, failed_items: 0 }) });
    const result = await runTaskctl(['wait', '12', '-o', 'tsv'], { api });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.match(/waiting \d+s for the rate limit \(6 requests a window\)…/g)).toEqual([
      'waiting 31s for the rate limit (6 requests a window)…',
    ]);
  });
});

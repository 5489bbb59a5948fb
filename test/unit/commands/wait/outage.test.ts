/**
 * wait/watch against a service that stops answering: no good answer for the outage tolerance, or a failing
 * service at the deadline, is exit 8 (7 after 429s) naming the last error and the last known state of each task; 124
 * means only that the service answered and the tasks were unfinished.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { ctrlCWhen, FakeClock, T0 } from '../../../clock.js';
import { mockApi, replyNoTasks, replyServices, runTaskctl } from '../run-in-process.js';

const processing = (id: number) => ({ success: true, data: task(id, { status: 'processing', completed_at: null }) });
const bad = { success: false, error: { code: 'internal_error', message: 'upstream down' } };

describe('wait/watch when the service stops answering', () => {
  it('wait: 502s after a good answer end in exit 8 after --outage-tolerance, naming the error and the last state', async () => {
    const api = mockApi();
    api.allowUnused(); // the failing replies are registered generously
    api.reply('GET', '/tasks/7', 200, processing(7));
    api.reply('GET', '/tasks/7', 502, bad, { times: 1000 });
    const result = await runTaskctl(['wait', '7', '--outage-tolerance', '1m', '-o', 'tsv'], { api });
    expect(result.code, result.stderr).toBe(8);
    expect(result.stderr).toMatch(
      /error: the service failed every read for the --outage-tolerance of 1m \(counted from its first failed read; no good answer for 1m\d*s?\); last error: reading task 7: the service failed \(HTTP 502, internal_error: upstream down\) after 4 attempts; last known: task 7 processing/,
    );
    expect(result.stderr).toMatch(/try again later with `taskctl wait 7`/);
    expect(result.stderr).not.toMatch(/timed out|still running/);
    // Each failed round said so in watch's words (one place: core/follow/outage.ts), whole seconds, when it gives up;
    // the round that gives up says no "still polling": the error follows at once.
    const warnings = result.stderr.split('\n').filter((line) => line.startsWith('warning: '));
    expect(warnings.length, result.stderr).toBeGreaterThan(1);
    for (const line of warnings)
      expect(line).toMatch(
        /^warning: reading task 7: the service failed \(HTTP 502, internal_error: upstream down\) after 4 attempts; no good answer for (\d+m)?(\d+s)?, still polling \(giving up in (\d+m)?(\d+s)? without one\)$/,
      );
    expect(warnings.at(-1)).not.toMatch(/giving up in 0s/);
    // The last known state on stdout, as after a timeout.
    expect(result.stdout).toMatch(/^7\t.*processing/);
  });

  it('wait: a 502 with an HTML body from the first read on: every line before the error is a warning', async () => {
    const api = mockApi();
    api.allowUnused(); // the failing replies are registered generously
    const html = { times: 1000, headers: { 'content-type': 'text/html' } };
    api.reply('GET', '/tasks/7', 502, '<html><body>Bad Gateway</body></html>', html);
    const result = await runTaskctl(['wait', '7', '-o', 'tsv'], { api });
    expect(result.code, result.stderr).toBe(8);
    const lines = result.stderr.trimEnd().split('\n');
    const error = lines.findIndex((line) => line.startsWith('error: '));
    expect(error, result.stderr).toBeGreaterThan(1);
    for (const line of lines.slice(0, error)) {
      expect(line).toMatch(
        /^warning: reading task 7: the server answered HTTP 502 with a body that is not JSON \(text\/html\) after 4 attempts; no good answer yet \((\d+m)?(\d+s)?\), still polling \(giving up in (\d+m)?(\d+s)? without one\)$/,
      );
    }
  });

  it('wait: a service that answers again after failed rounds says so, as watch does', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/7', 200, processing(7));
    api.reply('GET', '/tasks/7', 502, bad, { times: 8 }); // two rounds of 4 attempts
    api.reply('GET', '/tasks/7', 200, { success: true, data: task(7, { status: 'completed' }) });
    const result = await runTaskctl(['wait', '7', '-o', 'tsv'], { api });
    expect(result.code, result.stderr).not.toBe(8);
    expect(result.stderr).toMatch(/^warning: the service answers again \(after \d+s without a good answer\)$/m);
  });

  it('wait: a service failing when the deadline comes is exit 8, not 124, and prints no [] when nothing was seen', async () => {
    const api = mockApi();
    api.allowUnused(); // the failing replies are registered generously
    api.reply('GET', '/tasks/7', 503, bad, { times: 1000 });
    const result = await runTaskctl(['wait', '7', '--timeout', '30s', '-o', 'json'], { api });
    expect(result.code, result.stderr).toBe(8);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /the deadline came while it was failing; last error: .*; last known: task 7 not seen/,
    );
  });

  it('wait: only 429s is exit 7', async () => {
    const api = mockApi();
    api.allowUnused(); // the failing replies are registered generously
    api.reply(
      'GET',
      '/tasks/7',
      429,
      { success: false, error: { code: 'rate_limited', message: 'slow down' } },
      { times: 1000, headers: { 'retry-after': '1' } },
    );
    const result = await runTaskctl(['wait', '7', '--outage-tolerance', '20s', '-q'], { api });
    expect(result.code, result.stderr).toBe(7);
    expect(result.stderr).toMatch(/last error: .*slow down/);
  });

  it('wait: 429s whose rate limit holds the next read past --outage-tolerance give up at the tolerance', async () => {
    const api = mockApi();
    api.allowUnused(); // the failing replies are registered generously
    api.reply('GET', '/tasks/7', 200, processing(7));
    // A window of 4 requests, spent, that starts again in a minute: the client's limiter holds the next read till then.
    const spent = { 'x-ratelimit-limit': '4', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '60' };
    const limited = { success: false, error: { code: 'rate_limited', message: 'slow down' } };
    api.reply('GET', '/tasks/7', 429, limited, { times: 1000, headers: { 'retry-after': '1', ...spent } });
    const clock = new FakeClock();
    const result = await runTaskctl(['wait', '7', '--outage-tolerance', '8s', '-q'], { api, clock });
    expect(result.code, result.stderr).toBe(7);
    expect(result.stderr).toMatch(/--outage-tolerance of 8s .*last error: .*slow down/);
    // 8 s after the first failed read (sent a poll interval after the first, good, one at T0), not a minute later
    // after the hold.
    expect(clock.now() - T0).toBeGreaterThanOrEqual(8_000);
    expect(clock.now() - T0).toBeLessThan(10_000);
  });

  it('wait: a rate-limit hold ending a few seconds past --outage-tolerance still gets its last read', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/7', 200, processing(7));
    // The window spent, starting again 4 s past the tolerance: the last read goes then, and the service answers.
    const spent = { 'x-ratelimit-limit': '4', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '12' };
    const limited = { success: false, error: { code: 'rate_limited', message: 'slow down' } };
    api.reply('GET', '/tasks/7', 429, limited, { headers: { 'retry-after': '12', ...spent } });
    api.reply('GET', '/tasks/7', 200, { success: true, data: task(7) });
    const clock = new FakeClock();
    const result = await runTaskctl(['wait', '7', '--outage-tolerance', '8s', '--allow-item-failures', '-q'], {
      api,
      clock,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('the service answers again (after 12s without a good answer)');
  });

  it('wait: the service answering with the task still running at the deadline stays 124', async () => {
    const api = mockApi();
    api.allowUnused(); // the failing replies are registered generously
    api.reply('GET', '/tasks/7', 200, processing(7), { times: 1000 });
    const result = await runTaskctl(['wait', '7', '--timeout', '30s', '-q'], { api });
    expect(result.code, result.stderr).toBe(124);
  });

  it('watch without --timeout gives up after the outage tolerance (the config setting) instead of polling forever', async () => {
    const api = mockApi();
    api.allowUnused(); // the failing replies are registered generously
    api.reply('GET', '/tasks/7', 200, processing(7));
    api.reply('GET', '/tasks/7', 502, bad, { times: 1000 });
    const home = mkdtempSync(join(tmpdir(), 'taskctl-outage-'));
    onTestFinished(() => {
      rmSync(home, { recursive: true, force: true });
    });
    const set = await runTaskctl(['config', 'set', 'outage-tolerance', '45s'], { home });
    expect(set.code, set.stderr).toBe(0);
    const result = await runTaskctl(['watch', '7', '-o', 'ndjson'], { api, home });
    expect(result.code, result.stderr).toBe(8);
    expect(result.stderr).toMatch(
      /the service failed every read for the --outage-tolerance of 45s \(counted from its first failed read; no good answer for 4\d+s\)/,
    );
    expect(result.stderr).toMatch(/`taskctl watch 7`/);
  });
});

describe('create --wait: a failure after the tasks exist never hides them', () => {
  const S = 'domain_check_availability';
  function createdApi() {
    const api = mockApi();
    api.allowUnused(); // the failing replies are registered generously
    replyServices(api);
    replyNoTasks(api);
    api.reply('POST', '/tasks', 201, { success: true, data: task(12, { status: 'pending', completed_at: null }) });
    return api;
  }

  it('exit 8 after an outage names the created task on stderr with `taskctl wait`, and lists it on stdout', async () => {
    const api = createdApi();
    api.allowUnused();
    api.reply('GET', '/tasks/12', 502, bad, { times: 1000 });
    const result = await runTaskctl(['create', S, 'a.com', '--wait', '--outage-tolerance', '30s', '-o', 'tsv'], {
      api,
    });
    expect(result.code, result.stderr).toBe(8);
    expect(result.stderr).toMatch(/last known: task 12 pending/);
    // The outage message names the command to go on; once (no second line saying the same).
    // The task belongs to a job: the way on is the job, one short command however many tasks it has.
    expect(result.stderr).toMatch(/try again later with `taskctl wait --job j-[0-9a-z]+`/);
    expect(result.stderr.match(/taskctl wait --job/g)).toHaveLength(1);
    // Never seen by the wait: its state as created is the last known one.
    expect(result.stdout).toMatch(/^12\t.*pending/m);
  });

  it('exit 124 names it too', async () => {
    const api = createdApi();
    api.allowUnused();
    api.reply('GET', '/tasks/12', 200, processing(12), { times: 1000 });
    const result = await runTaskctl(['create', S, 'a.com', '--wait', '--timeout', '20s', '-q'], { api });
    expect(result.code, result.stderr).toBe(124);
    expect(result.stdout).toBe('12\n');
    expect(result.stderr).toMatch(/still running: taskctl wait --job j-[0-9a-z]+/);
    expect(result.stderr.match(/taskctl wait --job/g)).toHaveLength(1);
  });

  it('the create spent the budget: a deadline before the first read is 124 said as it is, not "the service is failing"', async () => {
    const api = mockApi();
    replyServices(api);
    replyNoTasks(api);
    // The POST's answer spends the window, which resets in 30 s; the wait may take 10 s.
    api.reply(
      'POST',
      '/tasks',
      201,
      { success: true, data: task(12, { status: 'pending', completed_at: null }) },
      { headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' } },
    );
    const clock = new FakeClock();
    const result = await runTaskctl(['create', S, 'a.com', '--wait', '--timeout', '10s', '-o', 'tsv'], { api, clock });
    expect(result.code, result.stderr).toBe(124);
    expect(api.calls.filter((call) => call.startsWith('GET /tasks/'))).toEqual([]);
    expect(result.stderr).not.toMatch(/service is failing|no answer from the service/);
    expect(result.stderr).toMatch(
      /error: timed out after 10s before the rate limit \(100 requests a window\) let the wait read the task; its state now is not known/,
    );
    expect(result.stderr).toMatch(/taskctl wait --job j-[0-9a-z]+/);
    // Never read: its record as created, said to be so.
    expect(result.stdout).toMatch(/^12\t.*pending/m);
    expect(result.stderr).toMatch(/state as created: the wait timed out before it read it/);
    // The wait slept until its deadline, not past it.
    expect(clock.now() - T0).toBeLessThan(11_000);
  });

  it('a --timeout that ends before the first read is sent, with no rate limit: not blamed on one (124)', async () => {
    const api = mockApi();
    api.allowUnused(); // never read: the deadline comes first
    api.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { status: 'processing', completed_at: null }) });
    const result = await runTaskctl(['wait', '1', '--timeout', '10ms'], {
      api,
      clock: new FakeClock({ readMs: 5 }) /* the wait's own start outlasts a 10 ms --timeout */,
    });
    expect(api.calls).toEqual([]);
    expect(result.code, result.stderr).toBe(124);
    expect(result.stderr).not.toMatch(/rate limit|auth status/);
    expect(result.stderr).toBe(
      'error: timed out after 10ms before the wait sent its first read of the task; its state now is not known\n' +
        'Wait again with a longer --timeout: taskctl wait 1\n',
    );
  });

  it('exit 130 (Ctrl-C) names it once', async () => {
    const api = createdApi();
    api.reply('GET', '/tasks/12', 200, processing(12), { times: 1000 });
    const controller = new AbortController();
    const result = await runTaskctl(['create', S, 'a.com', '--wait', '-q'], {
      api,
      clock: ctrlCWhen(new FakeClock(), controller, (ms, now) => now + ms - T0 >= 10_000),
      signal: controller.signal,
    });
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(/still running: taskctl wait --job j-[0-9a-z]+/);
    expect(result.stderr.match(/taskctl wait --job/g)).toHaveLength(1);
  });

  it('an error thrown by the wait (a malformed answer, exit 8) carries the note', async () => {
    const api = createdApi();
    api.allowUnused();
    api.reply('GET', '/tasks/12', 200, '"not a task"');
    const result = await runTaskctl(['create', S, 'a.com', '--wait', '-q'], { api });
    expect(result.code, result.stderr).toBe(8);
    expect(result.stderr).toMatch(
      /unexpected response[^\n]*\nthe task was created \(12\): continue with `taskctl wait --job j-[0-9a-z]+`/,
    );
  });

  it('an error thrown by the wait still puts the created task on stdout (as created, said so)', async () => {
    const api = createdApi();
    api.reply('GET', '/tasks/12', 200, '"not a task"');
    const result = await runTaskctl(['create', S, 'a.com', '--wait', '-o', 'json'], { api });
    expect(result.code, result.stderr).toBe(8);
    expect(JSON.parse(result.stdout)).toMatchObject([{ id: 12, status: 'pending' }]);
    expect(result.stderr).toMatch(/state as created; the latest: taskctl show --job j-[0-9a-z]+/);
  });
});

describe('the exit-8 words: the tolerance counts from the first failed read, not from the last good answer', () => {
  // Four good answers (the poll gap grows), then only 502s: the last good answer came well before the first failed read,
  // so the time without one passes the tolerance by that gap.
  for (const argv of [
    ['wait', '7'],
    ['watch', '7', '-o', 'ndjson'],
  ]) {
    it(`${argv[0]}: says the tolerance was passed from the first failed read, and the whole time without a good answer`, async () => {
      const api = mockApi();
      api.allowUnused(); // the failing replies are registered generously
      api.reply('GET', '/tasks/7', 200, processing(7), { times: 4 });
      api.reply('GET', '/tasks/7', 502, bad, { times: 1000 });
      const result = await runTaskctl([...argv, '--outage-tolerance', '30s'], { api });
      expect(result.code, result.stderr).toBe(8);
      const said = /error: (.*); last error:/.exec(result.stderr)?.[1] ?? '';
      expect(said).toMatch(
        /^the service failed every read for the --outage-tolerance of 30s \(counted from its first failed read; no good answer for (\d+)s\)$/,
      );
      // Longer than the tolerance, and said as what it is.
      expect(Number(/for (\d+)s\)$/.exec(said)?.[1])).toBeGreaterThan(30);
    });
  }
});

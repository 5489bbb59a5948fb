/** Ctrl-C while the POST waits for the rate limit: it never left, so the message says nothing was created. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { ctrlCWhen, FakeClock } from '../../../clock.js';
import { mockApi, replyNoTasks, replyServices, runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';

it('Ctrl-C during the rate-limit wait before the POST: exit 130, nothing created, no "may have been created"', async () => {
  const api = mockApi();
  replyServices(api);
  // The snapshot spends the last request of the window: the POST must wait about 30 s for the next one.
  replyNoTasks(api, { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' });
  const controller = new AbortController();
  const clock = ctrlCWhen(new FakeClock(), controller, (ms) => ms >= 5_000);
  const result = await runTaskctl(['create', S, 'a.com', '-q'], { api, clock, signal: controller.signal });
  expect(result.code).toBe(130);
  expect(result.stderr).toMatch(/interrupted before sending the task: nothing was created for it/);
  expect(result.stderr).not.toMatch(/may have been created/);
  expect(api.calls).not.toContain('POST /tasks');
});

it('journaled: Ctrl-C during that wait leaves no send record (the POST never left), so resume sends it without a scan', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-journal-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const journal = join(dir, 'job.jsonl');
  const api = mockApi();
  replyServices(api);
  replyNoTasks(api, { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' });
  const controller = new AbortController();
  const clock = ctrlCWhen(new FakeClock(), controller, (ms) => ms >= 5_000);
  const result = await runTaskctl(['create', S, 'a.com', '--journal', journal, '-q'], {
    api,
    clock,
    signal: controller.signal,
  });
  expect(result.code).toBe(130);
  expect(api.calls).not.toContain('POST /tasks');
  const records = readFileSync(journal, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; chunk?: number; task?: unknown });
  // A send record would leave the chunk in flight: resume would watch the task list for ~2 minutes before sending it.
  expect(records.map((record) => record.type)).toEqual(['job']);
});

it.each([
  ['a job', {}],
  // No journal: the state directory cannot be made (the create goes on without one).
  ['no journal', { TASKCTL_STATE_DIR: '/proc/nope/state' }],
])(
  'Ctrl-C before anything was sent (the price read waits to retry a 503), %s: exit 130, re-run is safe',
  async (_, env) => {
    const api = mockApi();
    api.reply(
      'GET',
      '/services',
      503,
      { success: false, error: { code: 'unavailable', message: 'down' } },
      { headers: { 'retry-after': '20' } },
    );
    const controller = new AbortController();
    const clock = ctrlCWhen(new FakeClock(), controller, (ms) => ms >= 1_000);
    const result = await runTaskctl(['create', S, 'a.com', 'b.com', '--chunk-size', '1', '-q'], {
      api,
      clock,
      signal: controller.signal,
      env,
    });
    expect(result.code).toBe(130);
    expect(result.stderr.trim().split('\n').slice(-2)).toEqual([
      'error: interrupted before anything was sent: nothing was created',
      'Re-run the same command to create the tasks.',
    ]);
    expect(api.calls).toEqual(['GET /services']);
  },
);

it('Ctrl-C while the balance read waits for the rate limit: no warning of an unread balance, and no job named', async () => {
  const api = mockApi();
  // The price read spends the last request of the window: the balance read (and the snapshot) wait for the next one.
  api.reply(
    'GET',
    '/services',
    200,
    {
      success: true,
      data: [{ service: S, display_name: 'Domain check', description: 'x', pricing: 1, currency: 'coins' }],
      meta: { total: 1, currency: 'coins' },
    },
    { headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' } },
  );
  const controller = new AbortController();
  const clock = ctrlCWhen(new FakeClock(), controller, (ms) => ms >= 5_000);
  const result = await runTaskctl(['create', S, 'a.com', 'b.com', 'c.com', '--chunk-size', '1', '-y', '-q'], {
    api,
    clock,
    signal: controller.signal,
  });
  expect(result.code).toBe(130);
  // The read was cut by the signal, not failed; and a job of which nothing was sent is not kept, so none is named.
  expect(result.stderr).not.toMatch(/balance could not be read/);
  expect(result.stderr).not.toMatch(/taskctl resume/);
  expect(result.stderr).toMatch(/nothing was created/);
  expect(api.calls).toEqual(['GET /services']);
});

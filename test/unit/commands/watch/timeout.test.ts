/**
 * `watch --timeout` at its end: the hint names the tasks still running, and only those. A follow (no ids) that times
 * out with none unfinished has nothing to resume: no `still running: taskctl watch ` with no id after it.
 */
import { describe, expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { FakeClock, BASE_URL, mockApi, runTaskctl } from '../run-in-process.js';

/** GET /tasks answers `tasks` on one page, every time it is read. */
function listing(tasks: Array<ReturnType<typeof task>>) {
  const api = mockApi();
  const meta = { current_page: 1, total_pages: 1, total_count: tasks.length, per_page: 100 };
  api.agent
    .get(new URL(BASE_URL).origin)
    .intercept({ method: 'GET', path: (p) => p.startsWith('/api/v1/tasks?') })
    .reply(200, JSON.stringify({ success: true, data: tasks, meta }), {
      headers: { 'content-type': 'application/json' },
    })
    .persist();
  return api;
}

describe('watch --timeout: what it says to go on', () => {
  it('a follow with every task finished: exit 124, "timed out", and no hint naming no task', async () => {
    const api = listing([task(1, { completed_items: 1, failed_items: 0 })]);
    const result = await runTaskctl(['watch', '--follow', '--timeout', '30s'], { api, clock: new FakeClock() });
    expect(result.code, result.stderr).toBe(124);
    expect(result.stderr).toContain('timed out');
    expect(result.stderr).not.toMatch(/taskctl watch\s*$/m);
    expect(result.stderr).not.toContain('still running');
  });

  it('a follow with a task still running: the hint names it', async () => {
    const api = listing([task(4, { status: 'processing', completed_items: 0, failed_items: 0 })]);
    const result = await runTaskctl(['watch', '--follow', '--timeout', '30s'], { api, clock: new FakeClock() });
    expect(result.code, result.stderr).toBe(124);
    expect(result.stderr).toMatch(/still running: taskctl watch 4$/m);
  });
});

it('a follow that saw no task at all says what it watched for, not that `watch --follow` would wait for new ones', async () => {
  const api = listing([]);
  const tty = { stdoutTTY: true, stderrTTY: true, columns: 80 };
  const result = await runTaskctl(['watch', '--follow', '--timeout', '30s'], { api, clock: new FakeClock(), ...tty });
  expect(result.code, result.stderr).toBe(124);
  expect(result.stderr).toContain('watching for new tasks');
  expect(result.stderr).not.toContain('nothing to watch');
});

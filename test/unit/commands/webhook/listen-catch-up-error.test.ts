/**
 * `webhook listen --catch-up` whose read of the task list (or of a task named) fails: the listener says the error, then
 * stops the usual way (its port closed, the events already handed on run to their end) and the run ends with the
 * error's exit code. A stop signal during that stop is heard: it abandons the events in hand.
 * In process (the listener is a real server on 127.0.0.1, port 0; the API a MockAgent), on the fake clock.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Task } from '../../../../src/api/schemas.js';
import { main } from '../../../../src/main.js';
import { createMemoryIO } from '../../../../src/output/memory-io.js';
import { waitFor } from '../../../wait-for.js';
import { API_KEY, BASE_URL, FakeClock, T0, mockApi, runTaskctl, type MockApi } from '../run-in-process.js';

let home: string | undefined;
const stops: AbortController[] = [];

afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort();
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

function completedTask(id: number): Task {
  return {
    id,
    service: 'domain_check_availability',
    status: 'completed',
    total_items: 1,
    cost: 1,
    created_at: new Date(T0 - 60_000).toISOString(),
    completed_at: new Date(T0 - 59_000).toISOString(),
  };
}

const listeningUrl = (stderr: string): string | undefined =>
  /listening for webhooks on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr)?.[1];

/** True when something still accepts connections at `url`'s port. */
function accepting(url: string): Promise<boolean> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** GET /tasks answering 500 to every attempt. */
function failingList(api: MockApi): void {
  api.reply(
    'GET',
    /^\/tasks\?/,
    500,
    { success: false, error: { code: 'internal_error', message: 'boom' } },
    {
      times: 20,
    },
  );
}

/** Catch-up of tasks 7 (completed) and 8 (not found), running `exec` for each event. */
function listenCatchingUp7And8(exec: string): string[] {
  return ['webhook', 'listen', '--port', '0', '--catch-up-task', '7', '--catch-up-task', '8', '--exec', exec];
}

/** The service: task 7 completed, task 8 not found. */
function sevenFoundEightMissing(): MockApi {
  const api = mockApi();
  api.reply('GET', '/tasks/7', 200, { success: true, data: completedTask(7) });
  api.reply('GET', '/tasks/8', 404, { success: false, error: { code: 'not_found', message: 'Task not found' } });
  return api;
}

describe('webhook listen --catch-up whose read fails', () => {
  it('a task list answering 500: says the error, stops (its port closed) and ends with exit 8', async () => {
    const api = mockApi();
    failingList(api);
    const result = await runTaskctl(['webhook', 'listen', '--port', '0', '--catch-up', '1h'], {
      api,
      clock: new FakeClock(),
    });
    expect(result.code, result.stderr).toBe(8);
    expect(result.stderr).toContain(
      'error: listing tasks: the service failed (HTTP 500, internal_error: boom) after 4 attempts',
    );
    const url = listeningUrl(result.stderr);
    expect(url, result.stderr).toBeDefined();
    expect(await accepting(url!)).toBe(false);
    // The error first, then the usual stop, which says it is one.
    const error = result.stderr.indexOf('error: listing tasks');
    const stopping = result.stderr.indexOf('stopping (after the error above): new deliveries get 503');
    expect(stopping, result.stderr).toBeGreaterThan(error);
    expect(error).toBeGreaterThanOrEqual(0);
    // Said once, not again by the run's end.
    expect(result.stderr.split('error: listing tasks')).toHaveLength(2);
  });

  it('a task named that does not exist: the events already handed on run their command, then exit 5', async () => {
    home = mkdtempSync(join(tmpdir(), 'taskctl-catchup-error-'));
    const ran = join(home, 'ran');
    const api = sevenFoundEightMissing();
    const result = await runTaskctl(
      [...listenCatchingUp7And8(`echo "$TASKCTL_EVENT $TASKCTL_TASK_ID" >> ${ran}`), '-o', 'ndjson'],
      { api, clock: new FakeClock(), home },
    );
    expect(result.code, result.stderr).toBe(5);
    expect(readFileSync(ran, 'utf8')).toBe('completed 7\n');
    expect(await accepting(listeningUrl(result.stderr)!)).toBe(false);
  });

  it('the first stop signal during that stop abandons the events in hand (exit 130), the port closed', async () => {
    home = mkdtempSync(join(tmpdir(), 'taskctl-catchup-error-'));
    const started = join(home, 'started');
    const api = sevenFoundEightMissing();
    const memory = createMemoryIO();
    const controller = new AbortController();
    stops.push(controller);
    const running = main(listenCatchingUp7And8(`touch ${started}; sleep 60`), {
      io: memory.io,
      env: {
        TASKCTL_BASE_URL: BASE_URL,
        TASKCTL_API_KEY: API_KEY,
        TASKCTL_CONFIG_DIR: join(home, 'config'),
        TASKCTL_CACHE_DIR: join(home, 'cache'),
        TASKCTL_STATE_DIR: join(home, 'state'),
      },
      clock: new FakeClock(),
      signal: controller.signal,
      random: () => 0.5,
      dispatcher: api.agent,
    });
    await waitFor(() => memory.stderr.text().includes('stopping (after the error above)') && existsSync(started), {
      describe: () => `the stop after the error, its command running: ${memory.stderr.text()}`,
    });
    controller.abort();
    const code = await running;
    const stderr = memory.stderr.text();
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(/abandoned 1 event\(s\) whose command did not run or finish: completed task 7/);
    expect(stderr).toContain('error: task 8 was not found');
    expect(await accepting(listeningUrl(stderr)!)).toBe(false);
  });
});

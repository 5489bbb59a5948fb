/** The table a create draws at a terminal shows the service's latest states (one list read), else says "as created". */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../../src/main.js';
import { createMemoryStream } from '../../../../src/output/memory-io.js';
import { task } from '../../../hardening/scripted-server.js';
import { ctrlCWhen } from '../../../clock.js';
import {
  API_KEY,
  FakeClock,
  BASE_URL,
  mockApi,
  replyNoTasks,
  replyServices,
  runTaskctl,
  settleTest,
  T0,
  type MockApi,
} from '../run-in-process.js';

const S = 'domain_check_availability';
const page = (data: unknown[]) => ({
  success: true,
  data,
  meta: { current_page: 1, total_pages: 1, total_count: data.length, per_page: 100 },
});

function createApi(): MockApi {
  const api = mockApi();
  replyServices(api);
  replyNoTasks(api);
  api.reply('POST', '/tasks', 201, { success: true, data: task(8, { status: 'pending', total_items: 1, cost: 1 }) });
  return api;
}

afterEach(settleTest);

it('at a terminal the table shows the state the service gives now', async () => {
  const api = createApi();
  api.reply('GET', /^\/tasks\?/, 200, page([task(8, { status: 'completed', total_items: 1, completed_items: 1 })]));
  const result = await runTaskctl(['create', S, 'a.com'], { api, stdoutTTY: true, columns: 120 });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/^\s*8\s.*completed/m);
  expect(result.stdout).not.toMatch(/pending/);
  expect(result.stderr).not.toMatch(/as created/);
});

it('a list that cannot be read: the states as created, said so with where to see the latest', async () => {
  const api = createApi();
  api.reply('GET', /^\/tasks\?/, 404, { success: false, error: { code: 'not_found', message: 'gone' } }, { times: 5 });
  const result = await runTaskctl(['create', S, 'a.com'], { api, stdoutTTY: true, columns: 120 });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/^\s*8\s.*pending/m);
  expect(result.stderr).toMatch(/states as created; the latest: taskctl show --job j-[0-9a-z]+/);
});

it('at a terminal the ✓ line comes before the table, where --wait puts it', async () => {
  const api = createApi();
  api.reply('GET', /^\/tasks\?/, 200, page([task(8, { status: 'completed', total_items: 1, completed_items: 1 })]));
  // stdout and stderr into one log, in the order written.
  const log: string[] = [];
  const terminal = (name: string) => {
    const stream = createMemoryStream(true, 120);
    return Object.assign(stream, { write: (chunk: string) => log.push(`${name}:${chunk}`) > 0 });
  };
  const home = mkdtempSync(join(tmpdir(), 'taskctl-order-'));
  try {
    const code = await main(['create', S, 'a.com'], {
      io: {
        stdout: terminal('out'),
        stderr: terminal('err'),
        stdin: {
          isTTY: true,
          async *[Symbol.asyncIterator]() {
            /* a terminal that sends nothing */
          },
        },
      },
      env: {
        TASKCTL_BASE_URL: BASE_URL,
        TASKCTL_API_KEY: API_KEY,
        TASKCTL_CONFIG_DIR: join(home, 'c'),
        TASKCTL_CACHE_DIR: join(home, 'k'),
        TASKCTL_STATE_DIR: join(home, 's'),
      },
      clock: new FakeClock(),
      signal: new AbortController().signal,
      random: () => 0.5,
      dispatcher: api.agent,
    });
    expect(code, log.join('')).toBe(0);
    const success = log.findIndex((chunk) => /^err:.*✓.*task 8/.test(chunk));
    const table = log.findIndex((chunk) => /^out:.*ID.*SERVICE/.test(chunk));
    expect(success, log.join('')).toBeGreaterThanOrEqual(0);
    expect(table, log.join('')).toBeGreaterThan(success);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

describe('Ctrl-C during --wait: the table shows what the wait read', () => {
  /** `create --wait` at a terminal, each read of task 8 answered `status` `body`, Ctrl-C 10 s in (virtual time). */
  async function createWaitCtrlC(status: number, body: unknown, terminal = { stderrTTY: false, columns: 120 }) {
    const api = createApi();
    api.reply('GET', '/tasks/8', status, body, { times: 100 });
    api.allowUnused();
    const controller = new AbortController();
    const clock = ctrlCWhen(new FakeClock(), controller, (ms, now) => now + ms - T0 >= 10_000);
    const result = await runTaskctl(['create', S, 'a.com', '--wait'], {
      api,
      stdoutTTY: true,
      ...terminal,
      clock,
      signal: controller.signal,
    });
    expect(result.code, result.stderr).toBe(130);
    return result;
  }

  it('the states the wait read, never those as created', async () => {
    const result = await createWaitCtrlC(200, {
      success: true,
      data: task(8, { status: 'processing', total_items: 1 }),
    });
    expect(result.stdout).toMatch(/^\s*8\s.*processing/m);
    expect(result.stdout).not.toMatch(/pending/);
    expect(result.stderr).not.toMatch(/as created/);
  });

  it('a task the wait never read (Ctrl-C first): its state as created, said so with where to see the latest', async () => {
    const result = await createWaitCtrlC(503, { success: false, error: { code: 'unavailable', message: 'busy' } });
    expect(result.stdout).toMatch(/^\s*8\s.*pending/m);
    expect(result.stderr).toMatch(
      /state as created: the run stopped before the wait read it\nthe latest: taskctl show --job j-[0-9a-z]+/,
    );
  });

  it('at an 80-column terminal that line is one line: no word of it left alone on the next', async () => {
    const unavailable = { success: false, error: { code: 'unavailable', message: 'busy' } };
    const result = await createWaitCtrlC(503, unavailable, { stderrTTY: true, columns: 80 });
    // What follows the live block's last redraw (it ends without a line break, cleared by the cursor's moves).
    const lines = result.stderr.slice(result.stderr.indexOf('state as created:')).split('\n');
    expect(lines[0], JSON.stringify(result.stderr)).toBe('state as created: the run stopped before the wait read it');
    expect(lines[1]).toMatch(/^the latest: taskctl show --job j-[0-9a-z]+$/);
  });
});

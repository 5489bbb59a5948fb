/**
 * `webhook listen`'s stop says what is true of it: "finishing" only the events in hand (and how many), none when none
 * is; and with `-q`, the address of a port it picked (`--port 0`) is still said, as a person needs it to send anything.
 * In process (the listener is a real server on 127.0.0.1, port 0), on the fake clock.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { main } from '../../../../src/main.js';
import { createMemoryIO } from '../../../../src/output/memory-io.js';
import { webhookHeaders } from '../../../../src/webhook/signature.js';
import { task } from '../../../hardening/scripted-server.js';
import { waitFor } from '../../../wait-for.js';
import { API_KEY, FakeClock } from '../run-in-process.js';

let home: string;
const stops: AbortController[] = [];
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'taskctl-listen-stopping-'));
});
afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort();
  rmSync(home, { recursive: true, force: true });
});

function start(more: string[]) {
  const memory = createMemoryIO();
  const stop = new AbortController();
  stops.push(stop);
  let again: (() => void) | undefined;
  const running = main(['webhook', 'listen', '--port', '0', '--no-wire', ...more], {
    io: memory.io,
    env: { TASKCTL_API_KEY: API_KEY, NO_COLOR: '1', TASKCTL_CONFIG_DIR: join(home, 'config') },
    clock: new FakeClock(),
    signal: stop.signal,
    onInterruptAgain: (handler) => (again = handler),
  });
  const url = () =>
    waitFor(() => /listening for webhooks on (\S+);/.exec(memory.stderr.text())?.[1], {
      describe: () => `no "listening" line; stderr ${JSON.stringify(memory.stderr.text())}`,
    });
  return { memory, stop, running, url, again: () => again?.() };
}

it('nothing in hand: the stop says no "finishing"', async () => {
  const { memory, stop, running, url } = start([]);
  await url();
  stop.abort();
  expect(await running).toBe(0);
  expect(memory.stderr.text()).toMatch(/^stopping: new deliveries get 503$/m);
  expect(memory.stderr.text()).not.toMatch(/finishing|abandon/);
});

it('an event whose command runs: the stop counts it, and Ctrl-C again abandons it', async () => {
  const started = join(home, 'started');
  const { memory, stop, running, url, again } = start(['--exec', `touch ${started}; sleep 60`]);
  const body = JSON.stringify({
    event: 'completed',
    timestamp: '2025-01-15T12:00:01.250Z',
    task: task(7, { status: 'completed', completed_items: 1, failed_items: 0 }),
  });
  const status = await fetch(await url(), { method: 'POST', body, headers: webhookHeaders(API_KEY) });
  expect(status.status).toBe(200);
  await waitFor(() => existsSync(started), { describe: () => memory.stderr.text() });
  stop.abort();
  await waitFor(() => memory.stderr.text().includes('stopping'), { describe: () => memory.stderr.text() });
  expect(memory.stderr.text()).toMatch(
    /^stopping: new deliveries get 503; finishing 1 event in hand \(Ctrl-C again to abandon it\)$/m,
  );
  again();
  expect(await running).toBe(130);
});

it('-q with --port 0: the address picked is still said; the other status lines are not', async () => {
  const { memory, stop, running, url } = start(['-q']);
  expect(await url()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  stop.abort();
  expect(await running).toBe(0);
  expect(memory.stderr.text()).not.toMatch(/stopping/);
  expect(memory.stdout.text()).toBe('');
});

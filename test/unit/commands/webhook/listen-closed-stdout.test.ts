/**
 * `webhook listen | head -1`: once stdout's reader is gone, the event whose print failed is not acknowledged (500, so
 * the service delivers it again), and the listener stops as at Ctrl-C: the sandbox's webhook URL is put back, exit 0.
 * With `--spool`, that event is not marked seen: the next listener with the same spool hands its redelivery on.
 * In process against a real sandbox on port 0, with a stdout that fails like a closed pipe.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../../src/main.js';
import { createMemoryIO, createMemoryStream } from '../../../../src/output/memory-io.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import { waitFor } from '../../../wait-for.js';
import { FakeClock } from '../../../clock.js';
import { brokenStdout } from '../broken-stdout.js';
import { runTaskctl } from '../run-in-process.js';

const OLD_URL = 'http://127.0.0.1:9/old-receiver';

let sandbox: RunningSandbox | undefined;
let home: string | undefined;
const stops: AbortController[] = [];

afterEach(async () => {
  for (const stop of stops.splice(0)) stop.abort();
  await sandbox?.close();
  sandbox = undefined;
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

interface Attempted {
  state: string;
  attempts: Array<{ statusCode: number | null }>;
}

async function admin<T>(path: string, method = 'GET'): Promise<T> {
  const response = await fetch(`${sandbox!.origin}/__sandbox${path}`, { method });
  return (await response.json()) as T;
}

const webhookUrl = async (): Promise<string | null> =>
  (await admin<{ webhookUrl: string | null }>('/state?tasks=false')).webhookUrl;

interface Delivery extends Attempted {
  id: number;
  event: string;
  url: string;
  test?: true;
}

function envOf(dir: string): Record<string, string> {
  return {
    TASKCTL_BASE_URL: sandbox!.url,
    TASKCTL_API_KEY: sandbox!.apiKey,
    TASKCTL_CONFIG_DIR: join(dir, 'config'),
    TASKCTL_CACHE_DIR: join(dir, 'cache'),
    TASKCTL_STATE_DIR: join(dir, 'state'),
  };
}

describe('webhook listen on a stdout whose reader went away', () => {
  it('answers 500 to the event it could not print, stops, and puts the old URL back (exit 0)', async () => {
    sandbox = await startSandbox({ port: 0, itemMs: 5, rateLimit: 0, webhookTimeScale: 0.001, webhookUrl: OLD_URL });
    home = mkdtempSync(join(tmpdir(), 'taskctl-wire-'));
    const controller = new AbortController();
    stops.push(controller);
    // `| head -1`: the first event is read, the pipe is closed after it.
    const stdout = brokenStdout(1);
    const stderr = createMemoryStream();
    const running = main(['webhook', 'listen', '--port', '0', '-o', 'ndjson'], {
      io: { stdout, stderr, stdin: createMemoryIO().io.stdin },
      env: {
        TASKCTL_BASE_URL: sandbox.url,
        TASKCTL_API_KEY: sandbox.apiKey,
        TASKCTL_CONFIG_DIR: join(home, 'config'),
        TASKCTL_CACHE_DIR: join(home, 'cache'),
        TASKCTL_STATE_DIR: join(home, 'state'),
      },
      clock: new FakeClock(),
      signal: controller.signal,
      random: () => 0.5,
    });
    await waitFor(async () => (await webhookUrl()) !== OLD_URL, { describe: () => 'the listener to wire itself' });

    const first = await admin<{ delivery: Attempted }>('/webhook/test', 'POST');
    expect(first.delivery.attempts.map((a) => a.statusCode)).toEqual([200]);
    const created = await runTaskctl(['create', 'domain_check_availability', 'a.com', '-q'], {
      env: { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey },
      home,
    });
    expect(created.code, created.stderr).toBe(0);

    // It stops by itself, through the normal shutdown.
    const code = await running;
    // The task's first event was not printed, so not acknowledged: the service keeps it to deliver again.
    const { deliveries } = await admin<{ deliveries: Array<Attempted & { test?: true }> }>('/deliveries');
    const task = deliveries.filter((d) => d.test !== true);
    expect(task[0]?.attempts[0]?.statusCode).toBe(500);
    expect(task.every((d) => d.state !== 'delivered')).toBe(true);
    expect(code, stderr.text()).toBe(0);
    expect(await webhookUrl()).toBe(OLD_URL);
    expect(stderr.text()).toContain(`webhook URL put back to ${OLD_URL}`);
    expect(stderr.text()).toContain("stopping (stdout's reader went away)");
    expect(stdout.text().trim().split('\n')).toHaveLength(1);
  });

  it('with --spool, the event it could not print is handed on by the next listener when the service delivers it again', async () => {
    // Retries 5 s apart and more: the only redelivery in this test is the replay asked for below.
    sandbox = await startSandbox({ port: 0, itemMs: 5, rateLimit: 0, webhookUrl: OLD_URL });
    home = mkdtempSync(join(tmpdir(), 'taskctl-wire-'));
    const spool = join(home, 'events.spool');
    const ran = join(home, 'ran');
    const exec = `echo "$TASKCTL_EVENT $TASKCTL_TASK_ID" >> ${ran}`;
    const argv = (port: string) => [
      'webhook',
      'listen',
      '--port',
      port,
      '-o',
      'ndjson',
      '--spool',
      spool,
      '--exec',
      exec,
    ];
    const first = new AbortController();
    stops.push(first);
    const stdout = brokenStdout(0);
    const stderr = createMemoryStream();
    const running = main(argv('0'), {
      io: { stdout, stderr, stdin: createMemoryIO().io.stdin },
      env: envOf(home),
      clock: new FakeClock(),
      signal: first.signal,
      random: () => 0.5,
    });
    await waitFor(async () => (await webhookUrl()) !== OLD_URL, {
      describe: () => 'the first listener to wire itself',
    });
    const created = await runTaskctl(['create', 'domain_check_availability', 'a.com', '-q'], {
      env: { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey },
      home,
    });
    expect(created.code, created.stderr).toBe(0);
    expect(await running, stderr.text()).toBe(0);
    const { deliveries } = await admin<{ deliveries: Delivery[] }>('/deliveries');
    const unprinted = deliveries[0]!;
    expect(unprinted.attempts[0]?.statusCode).toBe(500);

    // The service delivers again to the URL it has (the sandbox: the one the delivery was first sent to): the next
    // listener takes the port the first one had.
    const { port } = new URL(unprinted.url);
    const second = new AbortController();
    stops.push(second);
    const out = createMemoryStream();
    const log = createMemoryStream();
    const again = main(argv(port), {
      io: { stdout: out, stderr: log, stdin: createMemoryIO().io.stdin },
      env: envOf(home),
      clock: new FakeClock(),
      signal: second.signal,
      random: () => 0.5,
    });
    await waitFor(async () => (await webhookUrl()) !== OLD_URL, {
      describe: () => 'the second listener to wire itself',
    });
    const replayed = await admin<{ delivery: Delivery }>(`/deliveries/${unprinted.id}/replay`, 'POST');
    expect(replayed.delivery.state).toBe('delivered');
    second.abort();
    expect(await again, log.text()).toBe(0);
    // Printed and run once, by the run that printed it: not a duplicate, not a command left from the first run.
    expect(
      out
        .text()
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { event: string }).event),
    ).toContain(unprinted.event);
    expect(log.text()).not.toContain('duplicate');
    expect(log.text()).not.toContain('left from the last run');
    expect(
      readFileSync(ran, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith(unprinted.event)),
    ).toHaveLength(1);
  });
});

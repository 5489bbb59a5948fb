/**
 * `webhook listen` wires itself to the sandbox: in process against a real sandbox on port 0 (the listener is a server,
 * the sandbox delivers to it), Ctrl-C being the abort signal main() is given.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import { FakeClock, T0 } from '../../../clock.js';
import { waitFor } from '../../../wait-for.js';
import { notRunningPid } from '../../pids.js';
import { mockApi, runTaskctl, type RunResult } from '../run-in-process.js';

const OLD_URL = 'http://127.0.0.1:9/old-receiver';
const LISTENER = /^http:\/\/127\.0\.0\.1:\d+\/hooks$/;

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

async function world(): Promise<RunningSandbox> {
  sandbox = await startSandbox({ port: 0, itemMs: 5, rateLimit: 0, webhookTimeScale: 0.001, webhookUrl: OLD_URL });
  home = mkdtempSync(join(tmpdir(), 'taskctl-wire-'));
  return sandbox;
}

async function admin<T>(path: string, body?: object): Promise<T> {
  const response = await fetch(`${sandbox!.origin}/__sandbox${path}`, {
    method: body ? 'POST' : 'GET',
    ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  return (await response.json()) as T;
}

const webhookUrl = async (): Promise<string | null> =>
  (await admin<{ webhookUrl: string | null }>('/state?tasks=false')).webhookUrl;

/** Starts `webhook listen` in process; `stop()` is Ctrl-C and resolves with the run's result. */
function listen(args: string[] = []): { stop: () => Promise<RunResult> } {
  const controller = new AbortController();
  stops.push(controller);
  const running = runTaskctl(['webhook', 'listen', '--port', '0', '--path', '/hooks', ...args], {
    env: { TASKCTL_BASE_URL: sandbox!.url, TASKCTL_API_KEY: sandbox!.apiKey },
    home,
    clock: new FakeClock(),
    signal: controller.signal,
  });
  return {
    stop: async () => {
      controller.abort();
      return running;
    },
  };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  let seen: T | undefined;
  return waitFor(async () => ((seen = await read()), done(seen) && { value: seen }), {
    describe: () => `${what}: last ${JSON.stringify(seen)}`,
  }).then(({ value }) => value);
}

const wiredTo = (previous: string | null) =>
  until(webhookUrl, (url) => url !== previous && url !== null && LISTENER.test(url), 'the listener to wire itself');

describe('webhook listen wires itself to the sandbox', () => {
  it('sets its URL, gets an event without any setting by hand, and puts the old URL back on Ctrl-C', async () => {
    await world();
    const listener = listen(['-o', 'ndjson']);
    const url = await wiredTo(OLD_URL);
    const created = await runTaskctl(['create', 'domain_check_availability', 'a.com', '-q'], {
      env: { TASKCTL_BASE_URL: sandbox!.url, TASKCTL_API_KEY: sandbox!.apiKey },
      home,
    });
    expect(created.code, created.stderr).toBe(0);
    await until(
      () => admin<{ deliveries: Array<{ event: string }> }>('/deliveries?state=delivered'),
      (answer) => answer.deliveries.some((d) => d.event === 'completed'),
      'the completed event to be delivered',
    );
    const result = await listener.stop();
    expect(result.code, result.stderr).toBe(0);
    expect(await webhookUrl()).toBe(OLD_URL);
    expect(result.stderr).toContain(`webhook URL set to ${url} (was ${OLD_URL}`);
    expect(result.stderr).toContain(`webhook URL put back to ${OLD_URL}`);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string });
    expect(events.map((e) => e.event)).toContain('completed');
  });

  it('at Ctrl-C says it stops first, then that the URL is put back', async () => {
    await world();
    const listener = listen();
    await wiredTo(OLD_URL);
    const result = await listener.stop();
    expect(result.code, result.stderr).toBe(0);
    const stopping = result.stderr.indexOf('stopping: new deliveries get 503');
    const putBack = result.stderr.indexOf(`webhook URL put back to ${OLD_URL}`);
    expect(stopping).toBeGreaterThanOrEqual(0);
    expect(putBack).toBeGreaterThan(stopping);
  });

  it('leaves a URL changed meanwhile (in the dashboard) as it is', async () => {
    await world();
    const listener = listen();
    await wiredTo(OLD_URL);
    await admin('/webhook', { url: 'http://127.0.0.1:9/dashboard-choice' });
    const result = await listener.stop();
    expect(result.code).toBe(0);
    expect(await webhookUrl()).toBe('http://127.0.0.1:9/dashboard-choice');
    expect(result.stderr).toContain('webhook URL changed meanwhile; left as it is');
  });

  it('two listeners: the first to stop leaves the second wired, the second puts the first URL back', async () => {
    await world();
    const first = listen();
    const firstUrl = await wiredTo(OLD_URL);
    const second = listen();
    const secondUrl = await wiredTo(firstUrl);
    await first.stop();
    expect(await webhookUrl()).toBe(secondUrl);
    await second.stop();
    expect(await webhookUrl()).toBe(OLD_URL);
  });

  it('puts back a wiring left by a killed listener (its pid dead), then wires itself', async () => {
    await world();
    const { dead, left } = await killedListenerWiring();
    const listener = listen();
    await wiredTo(left);
    const result = await listener.stop();
    expect(result.stderr).toContain(
      `webhook URL put back to ${OLD_URL} (left set by a listener that was killed, pid ${dead})`,
    );
    // Its own wiring was made over the restored URL, so Ctrl-C puts back the URL before the killed listener's.
    expect(await webhookUrl()).toBe(OLD_URL);
  });

  it('listening on every address, it gives the sandbox its 127.0.0.1 address', async () => {
    await world();
    const listener = listen(['--host', '0.0.0.0']);
    const url = await wiredTo(OLD_URL);
    expect(url).toMatch(LISTENER);
    await listener.stop();
    expect(await webhookUrl()).toBe(OLD_URL);
  });

  it('--no-wire leaves the sandbox alone and says where to set the URL', async () => {
    await world();
    // Stopped at once: the wiring (or not) happens before the listener waits for Ctrl-C.
    const listener = listen(['--no-wire']);
    const result = await listener.stop();
    expect(await webhookUrl()).toBe(OLD_URL);
    expect(result.stderr).toContain(`left as it is (--no-wire); set it in its dashboard at ${sandbox!.origin}/`);
  });

  it('--no-wire while the URL points at a listener that was killed: says so, and how to take it over', async () => {
    await world();
    const { left } = await killedListenerWiring();
    const result = await listen(['--no-wire']).stop();
    expect(await webhookUrl()).toBe(left);
    expect(result.stderr.replace(/\n/g, ' ')).toContain(
      `the sandbox's webhook URL points at ${left}, a taskctl listener that has ended: drop --no-wire to take it over`,
    );
  });
});

describe('webhook listen against another service', () => {
  it('says first that a public HTTPS URL (a tunnel) is needed, and where to set it', async () => {
    const controller = new AbortController();
    stops.push(controller);
    const running = runTaskctl(['webhook', 'listen', '--port', '0'], { api: mockApi(), signal: controller.signal });
    controller.abort();
    const result = await running;
    expect(result.code).toBe(0);
    const lines = result.stderr.split('\n');
    expect(lines[0]).toMatch(/public HTTPS URL set in its web dashboard/);
    expect(result.stderr).toMatch(/tunnel/);
    expect(result.stderr.indexOf('tunnel')).toBeLessThan(result.stderr.indexOf('listening for webhooks'));
  });
});

describe('webhook listen --catch-up', () => {
  it('Ctrl-C while catch-up waits for room says how many were handed on, and how to catch up the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taskctl-catchup-cmd-'));
    const gate = join(dir, 'gate');
    const out = join(dir, 'ran');
    expect(spawnSync('mkfifo', [gate]).status).toBe(0);
    const api = mockApi();
    const tasks = Array.from({ length: 20 }, (_, i) => ({
      id: 20 - i,
      service: 'domain_check_availability',
      status: 'completed',
      total_items: 1,
      cost: 1,
      created_at: new Date(T0 - (i + 1) * 60_000).toISOString(),
      completed_at: new Date(T0 - i * 60_000).toISOString(),
    }));
    const meta = { current_page: 1, total_pages: 1, total_count: 20, per_page: 100 };
    api.reply('GET', /^\/tasks\?/, 200, { success: true, data: tasks, meta });
    const controller = new AbortController();
    stops.push(controller);
    const exec = `echo $TASKCTL_TASK_ID >> ${out}; [ "$TASKCTL_TASK_ID" != 1 ] || read x < ${gate}`;
    const running = runTaskctl(
      ['webhook', 'listen', '--port', '0', '--catch-up', '1h', '--queue', '5', '--exec', exec, '-o', 'ndjson'],
      { api, clock: new FakeClock(), signal: controller.signal },
    );
    const ran = () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter(Boolean) : []);
    await waitFor(() => ran().includes('1'), { describe: () => ran().join(',') });
    controller.abort();
    await writeFile(gate, 'go\n');
    const result = await running;
    rmSync(dir, { recursive: true, force: true });
    expect(result.code, result.stderr).toBe(0);
    const handed = Number(/catch-up: (\d+) synthesised event\(s\) from 20 task\(s\)/.exec(result.stderr)?.[1]);
    expect(handed).toBeGreaterThanOrEqual(1);
    expect(handed).toBeLessThanOrEqual(3);
    expect(result.stderr).toContain(
      `catch-up: stopped (Ctrl-C) with ${20 - handed} task(s) not handed on: tasks ${handed + 1}, `,
    );
    // The oldest left was created 20 - handed minutes before T0.
    expect(result.stderr).toContain(`Catch them up: start again with --catch-up ${20 - handed}m`);
    expect(result.stdout.trim().split('\n')).toHaveLength(handed);
  });
});

/** The sandbox's URL set by a listener whose process has ended (its pid dead), as the wirings file records it. */
async function killedListenerWiring(): Promise<{ dead: number; left: string }> {
  const dead = notRunningPid();
  const left = 'http://127.0.0.1:9/killed-listener';
  await admin('/webhook', { url: left });
  const wirings = {
    version: 1,
    wirings: [{ pid: dead, host: hostname(), sandbox: sandbox!.origin, url: left, previous: OLD_URL, at: 1 }],
  };
  mkdirSync(join(home!, 'cache'), { recursive: true });
  writeFileSync(join(home!, 'cache', 'webhook-wirings.json'), JSON.stringify(wirings));
  return { dead, left };
}

/**
 * `webhook listen` and `webhook simulate` against real sandbox deliveries. What the listener prints, acknowledges and
 * forwards runs `main()` in this process (its subject is the listener, not the process); signals (Ctrl-C twice,
 * SIGHUP, SIGKILL and the wiring they leave) spawn the bin. The tasks whose events are delivered are POSTed straight to
 * the sandbox (`world.createTask`): taskctl's create is not the subject here.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebhookEventSchema } from '../../src/api/schemas.js';
import { systemClock } from '../../src/lib/time.js';
import { main } from '../../src/main.js';
import { createMemoryIO } from '../../src/output/memory-io.js';
import { BIN, freePort, isolatedHome, startWorld, waitFor as waitForEvent, type E2EWorld } from './spawn-cli.js';

/** A loopback address no other test binds: a port found free there stays free until this file binds it. */
const APP_HOST = '127.0.0.5';

let world: E2EWorld | undefined;
let listener: ChildProcessWithoutNullStreams | undefined;
let receiver: Server | undefined;

/** In-process listeners of the test: each stopped (Ctrl-C) and awaited, and its home removed, after the test. */
const inProcess: Array<{ stop: () => Promise<number> }> = [];
const homes: Array<() => void> = [];

afterEach(async () => {
  for (const running of inProcess.splice(0)) await running.stop();
  for (const cleanup of homes.splice(0)) cleanup();
  listener?.kill('SIGTERM');
  const running = listener;
  if (running?.exitCode === null) await new Promise((resolve) => running.once('close', resolve));
  listener = undefined;
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  receiver = undefined;
  await world?.close();
  world = undefined;
});

/** Starts `taskctl webhook listen` and resolves once it says it is listening. */
async function listen(
  env: Record<string, string>,
  args: string[],
): Promise<{ stdout: () => string; stderr: () => string; port: number; url: string }> {
  // Port 0 and the port the listener reports: a port picked here first could be taken by a parallel test in between.
  const child = spawn(process.execPath, [BIN, 'webhook', 'listen', '--port', '0', ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  listener = child;
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  // A start-up on a loaded machine takes seconds.
  await waitFor(
    () => stderr.includes('listening for webhooks'),
    () => `listener did not start: ${stderr}`,
    30_000,
  );
  const url = /listening for webhooks on (http:\/\/127\.0\.0\.1:(\d+)\S*);/.exec(stderr);
  if (!url) throw new Error(`no URL in the listener's line: ${stderr}`);
  return { stdout: () => stdout, stderr: () => stderr, port: Number(url[2]), url: url[1]! };
}

/**
 * `webhook listen` through `main()` in this process (real time, memory output read as it grows), once it says it is
 * listening; `stop()` is Ctrl-C and resolves with the exit code. Without a config directory in `env`, a fresh home.
 */
async function listenHere(
  env: Record<string, string>,
  args: string[],
): Promise<{ stdout: () => string; stderr: () => string; port: number; url: string; stop: () => Promise<number> }> {
  let homeEnv = {};
  if (env.TASKCTL_CONFIG_DIR === undefined) {
    const home = isolatedHome();
    homes.push(home.cleanup);
    homeEnv = home.env;
  }
  const memory = createMemoryIO();
  const controller = new AbortController();
  const running = main(['webhook', 'listen', '--port', '0', ...args], {
    io: memory.io,
    env: { ...homeEnv, ...env },
    clock: systemClock,
    signal: controller.signal,
  });
  const stop = () => {
    controller.abort();
    return running;
  };
  inProcess.push({ stop });
  const stdout = () => memory.stdout.text();
  const stderr = () => memory.stderr.text();
  const url = await waitForEvent(() => /listening for webhooks on (http:\/\/127\.0\.0\.1:(\d+)\S*);/.exec(stderr()), {
    describe: () => `listener did not start: ${stderr()}`,
  });
  return { stdout, stderr, port: Number(url[2]), url: url[1]!, stop };
}

/** Points the sandbox's deliveries at `url` (set after the listener has its port). */
async function deliverTo(url: string): Promise<void> {
  await world!.admin('POST', '/__sandbox/webhook', { url });
}

/** Until `check` holds (after `refresh`), or fails with `message()` (what it saw) after `timeoutMs`. */
const waitFor = (check: () => boolean, message: () => string, timeoutMs = 10_000, refresh?: () => Promise<void>) =>
  waitForEvent(async () => (await refresh?.(), check()), { timeoutMs, describe: message });

describe('webhook listen', () => {
  it('receives real sandbox deliveries, verified, and prints each event once as ndjson', async () => {
    world = await startWorld({ itemMs: 5, webhookTimeScale: 0.001 });
    const out = await listenHere(world.env, ['--path', '/hooks', '-o', 'ndjson']);
    await deliverTo(out.url);
    const created = await world.createTask('domain_check_availability', ['a.com', 'b.com']);
    await waitFor(
      () => out.stdout().includes('"completed"'),
      () => `no completed event: ${out.stdout()} ${out.stderr()}`,
    );
    const events = out
      .stdout()
      .trim()
      .split('\n')
      .map((line) => WebhookEventSchema.parse(JSON.parse(line)));
    expect(events.map((e) => e.event)).toEqual(['processing', 'completed']);
    expect(events[0]!.task.id).toBe(created.id);
    expect(out.stdout() + out.stderr()).not.toContain(world.sandbox.apiKey);
  });

  it('rejects a wrong signature with 401 and prints nothing', async () => {
    world = await startWorld();
    const out = await listenHere(world.env, ['-o', 'ndjson']);
    const port = out.port;
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': 'sk_not_the_key' },
      body: '{}',
    });
    expect(response.status).toBe(401);
    expect(out.stdout()).toBe('');
    expect(out.stderr()).not.toContain('sk_not_the_key');
  });

  it('acknowledges a signed event whose shape is not the documented one, prints it as received and warns (tsv and ndjson)', async () => {
    world = await startWorld();
    const out = await listenHere(world.env, ['-o', 'ndjson']);
    const port = out.port;
    const body = {
      event: 'completed',
      timestamp: '2025-01-01T00:00:00Z',
      task: { id: 5, service: 'domain_check_availability', status: 'completed', total_items: 1, extra: [1] },
    };
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature': world.sandbox.apiKey },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    await waitFor(
      () => out.stdout().includes('"extra"'),
      () => `not printed: ${out.stdout()} ${out.stderr()}`,
    );
    expect(JSON.parse(out.stdout().trim())).toEqual(body);
    expect(out.stderr()).toMatch(/warning: completed task 5 is not the documented event shape \(task\.platform/);
  });

  it('survives a receiver that failed the first attempts: the sandbox delivers them again and each event prints once', async () => {
    let port = 0; // the listener's, once it has started
    // A flaky front: answers 503 to the first two deliveries, then forwards to the listener.
    let seen = 0;
    receiver = createServer((req, res) => {
      seen += 1;
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on(
        'end',
        () =>
          void (async () => {
            if (seen <= 2) {
              res.writeHead(503).end();
              return;
            }
            // fetch sets its own length and connection headers (undici refuses a forwarded content-length).
            const headers = Object.entries(req.headers).filter(
              (entry): entry is [string, string] =>
                typeof entry[1] === 'string' && !['content-length', 'connection', 'host'].includes(entry[0]),
            );
            const forwarded = await fetch(`http://127.0.0.1:${port}/`, {
              method: 'POST',
              headers,
              body: Buffer.concat(chunks),
            });
            res.writeHead(forwarded.status).end();
          })(),
      );
    });
    await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
    const proxyPort = (receiver.address() as AddressInfo).port;
    world = await startWorld({ itemMs: 5, webhookUrl: `http://127.0.0.1:${proxyPort}/`, webhookTimeScale: 0.001 });
    // --no-wire: the sandbox keeps delivering to the flaky front.
    const out = await listenHere(world.env, ['-o', 'ndjson', '--no-wire']);
    port = out.port;
    await world.createTask('domain_check_availability', ['a.com']);
    await waitFor(
      () => out.stdout().includes('"completed"'),
      () => `no completed event: ${out.stdout()} ${out.stderr()}`,
    );
    // Each delivery is printed before it is acknowledged: once the service counts every one delivered, a repeat would show.
    let deliveries: Array<{ state: string; attempts: unknown[] }> = [];
    await waitForEvent(
      async () => {
        ({ deliveries } = await world!.admin<{ deliveries: typeof deliveries }>('GET', '/__sandbox/deliveries'));
        return deliveries.length >= 2 && deliveries.every((d) => d.state === 'delivered' || d.state === 'abandoned');
      },
      { describe: () => `deliveries ${JSON.stringify(deliveries.map((d) => d.state))}; stdout ${out.stdout()}` },
    );
    const events = out
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string });
    expect(events.map((e) => e.event).sort()).toEqual(['completed', 'processing']);
    expect(deliveries.reduce((n, d) => n + d.attempts.length, 0)).toBeGreaterThanOrEqual(4);
  });
});

describe('webhook listen never loses an acknowledged event', () => {
  it('--forward-to an app that is down: the service gets 502, delivers it again, and the app gets each event once when it is up', async () => {
    // The app's address is one no other test binds, so its port stays free until the app starts here.
    const appPort = await freePort(APP_HOST);
    world = await startWorld({ itemMs: 5, webhookTimeScale: 0.01 });
    const out = await listenHere(world.env, ['--forward-to', `http://${APP_HOST}:${appPort}/`]);
    await deliverTo(out.url);
    await world.createTask('domain_check_availability', ['a.com']);
    interface Deliveries {
      deliveries: Array<{ state: string; attempts: Array<{ statusCode: number | null }> }>;
    }
    await waitFor(
      () => out.stderr().includes('→ 502'),
      () => `no 502: ${out.stderr()}`,
    );
    // Nothing was acknowledged, so nothing is printed yet.
    expect(out.stdout()).toBe('');
    const got: string[] = [];
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event: string }).event);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver!.listen(appPort, APP_HOST, resolve));
    await waitFor(
      () => got.includes('processing') && got.includes('completed'),
      () => `not forwarded: ${JSON.stringify(got)} ${out.stderr()}`,
    );
    // The sandbox records the 200 once the listener's answer has reached it.
    let deliveries: Deliveries['deliveries'] = [];
    await waitFor(
      () => deliveries.length === 2 && deliveries.every((d) => d.state === 'delivered'),
      () => JSON.stringify(deliveries),
      10_000,
      async () => {
        deliveries = (await world!.admin<Deliveries>('GET', '/__sandbox/deliveries')).deliveries;
      },
    );
    expect(deliveries.some((d) => d.attempts.some((a) => a.statusCode === 502))).toBe(true);
    expect(got.sort()).toEqual(['completed', 'processing']);
    expect(out.stdout().trim().split('\n')).toHaveLength(2);
  });

  it('Ctrl-C finishes the queue (exit 0); a second Ctrl-C abandons it and names the events not run (exit 130)', async () => {
    const env = { TASKCTL_API_KEY: 'sk_e2e_ctrl_c' };
    const signedPost = (port: number, id: number) =>
      fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Webhook-Signature': 'sk_e2e_ctrl_c' },
        body: JSON.stringify({ event: 'completed', task: { id } }),
      });
    // One Ctrl-C in this process (a stop asked for, as the bin's first SIGINT asks: src/main.ts); a stop signal's exit 0
    // from a spawned listener is SIGHUP's, below. The second Ctrl-C is the bin's own: only a process can get it.
    const first = await listenHere(env, ['--exec', 'sleep 0.3', '-o', 'ndjson']);
    for (const id of [1, 2]) expect((await signedPost(first.port, id)).status).toBe(200);
    expect(await first.stop()).toBe(0);
    expect(first.stderr()).toMatch(/stopping: new deliveries get 503/);

    const second = await listen(env, ['--exec', 'sleep 30']);
    for (const id of [3, 4, 5]) expect((await signedPost(second.port, id)).status).toBe(200);
    const again = listener!;
    const ended = new Promise<number | null>((resolve) => again.once('close', resolve));
    again.kill('SIGINT');
    await waitFor(
      () => second.stderr().includes('stopping'),
      () => second.stderr(),
    );
    again.kill('SIGINT');
    expect(await ended).toBe(130);
    expect(second.stderr()).toMatch(/abandoned 3 event\(s\).*completed task 3, completed task 4, completed task 5/);
  });

  it('--catch-up hands on one synthesised event per recent task first, and a real delivery of it later is a duplicate', async () => {
    world = await startWorld({ itemMs: 0 });
    await world.createTask('domain_check_availability', ['a.com']);
    await world.createTask('domain_check_availability', ['taskfail-b.com']);
    const out = await listenHere(world.env, ['--catch-up', '1h', '-o', 'ndjson']);
    const port = out.port;
    await waitFor(
      () => out.stderr().includes('catch-up: 2 synthesised event(s) from 2 task(s)'),
      () => out.stderr(),
    );
    const events = out
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; synthesised: boolean; task: { id: number } });
    expect(events.map((e) => [e.task.id, e.event, e.synthesised])).toEqual([
      [1, 'completed', true],
      [2, 'failed', true],
    ]);
    // The real event arriving later (signed as the service signs it): a duplicate, not printed again.
    const real = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Webhook-Signature': world.sandbox.apiKey },
      body: JSON.stringify({ ...events[0], synthesised: undefined }),
    });
    expect(real.status).toBe(200);
    await waitFor(
      () => out.stderr().includes('completed task 1 (duplicate; already handled'),
      () => out.stderr(),
    );
    expect(out.stdout().trim().split('\n')).toHaveLength(2);
  });

  it("prints the human format in the project's colours, never as escape text", async () => {
    const env = { TASKCTL_API_KEY: 'sk_e2e_colour', FORCE_COLOR: '1' };
    const out = await listenHere(env, ['-o', 'table']);
    const port = out.port;
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Webhook-Signature': 'sk_e2e_colour' },
      body: JSON.stringify({ event: 'failed', task: { id: 3, error_message: '\u001b[2Jboom' } }),
    });
    expect(res.status).toBe(200);
    await waitFor(
      () => out.stdout().includes('task 3'),
      () => out.stdout(),
    );
    // A repeat is shown, dimmed, as a duplicate (and not handed on).
    const again = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Webhook-Signature': 'sk_e2e_colour' },
      body: JSON.stringify({ event: 'failed', task: { id: 3, error_message: '\u001b[2Jboom' } }),
    });
    expect(again.status).toBe(200);
    await waitFor(
      () => out.stdout().includes('duplicate'),
      () => out.stdout(),
    );
    expect(out.stdout()).toContain('\u001b[2m  (duplicate, not handed on again)\u001b[22m');
    // The status is painted red by chalk; the sender's escape stays visible text, never a raw ESC.
    expect(out.stdout()).toContain('\u001b[31mfailed\u001b[39m');
    expect(out.stdout()).not.toContain('\\x1b[31m');
    expect(out.stdout()).not.toContain('\u001b[2J');
  });
});

describe('webhook simulate', () => {
  it('after the real event, a simulated one is still handed on: --exec runs again with TASKCTL_SIMULATED=1', async () => {
    const sandbox = await startWorld({ itemMs: 0, webhookTimeScale: 0.001 });
    world = sandbox;
    const log = join(sandbox.home.dir, 'exec.log');
    const exec = `echo "$TASKCTL_EVENT $TASKCTL_TASK_ID \${TASKCTL_SIMULATED:-real}" >> "${log}"`;
    // Wired by itself: no webhook URL set by hand.
    const out = await listenHere(sandbox.env, ['-o', 'ndjson', '--exec', exec]);
    const id = String((await sandbox.createTask('domain_check_availability', ['a.com'])).id);
    const execLines = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);
    await waitFor(
      () => execLines().includes(`completed ${id} real`),
      () => `the real event did not run --exec: ${execLines().join('|')} ${out.stderr()}`,
    );
    const to = `http://127.0.0.1:${out.port}/`;
    const result = await sandbox.inProcess(['webhook', 'simulate', id, '--to', to]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/delivered completed event/);
    // Its status line says simulated; the exec line, that the command saw TASKCTL_SIMULATED=1.
    await waitFor(
      () => execLines().includes(`completed ${id} 1`) && out.stderr().includes(`completed task ${id} (simulated)`),
      () => `the simulated event did not run --exec: ${execLines().join('|')} ${out.stderr()}`,
    );
    // The printed event is the event as sent, once for the real delivery and once for the simulated one.
    const completed = out
      .stdout()
      .trim()
      .split('\n')
      .map((line) => WebhookEventSchema.parse(JSON.parse(line)))
      .filter((e) => e.event === 'completed');
    expect(completed).toHaveLength(2);
    expect(completed[1]).toMatchObject({ event: 'completed', task: { id: Number(id), status: 'completed' } });
  });

  it('refuses plain http to a non-loopback receiver', async () => {
    world = await startWorld({ itemMs: 0 });
    const created = await world.createTask('domain_check_availability', ['a.com']);
    const result = await world.inProcess([
      'webhook',
      'simulate',
      String(created.id),
      '--to',
      'http://example.com/hook',
    ]);
    expect(result.code).toBe(2);
  });
});

describe('webhook listen wires itself to the sandbox', () => {
  const OLD = 'http://127.0.0.1:9/old-receiver';
  const webhookUrl = async () =>
    (await world!.admin<{ webhookUrl: string | null }>('GET', '/__sandbox/state?tasks=false')).webhookUrl;

  async function stopWith(signal: NodeJS.Signals): Promise<number | null> {
    const running = listener!;
    const closed = new Promise<number | null>((resolve) => running.once('close', (code) => resolve(code)));
    running.kill(signal);
    const code = await closed;
    listener = undefined;
    return code;
  }

  // SIGHUP, a requested stop like Ctrl-C (src/main.ts): exit 0 (signals.test.ts's convention for the servers).
  it('sets its URL, an event reaches it with nothing set by hand, and SIGHUP (exit 0) puts the old URL back', async () => {
    world = await startWorld({ itemMs: 5, webhookTimeScale: 0.001, webhookUrl: OLD });
    const out = await listen(world.env, ['--path', '/hooks', '-o', 'ndjson']);
    expect(await webhookUrl()).toBe(out.url);
    expect(out.stderr()).toContain(`webhook URL set to ${out.url} (was ${OLD}`);
    await world.createTask('domain_check_availability', ['a.com']);
    await waitFor(
      () => out.stdout().includes('"completed"'),
      () => `no completed event: ${out.stdout()} ${out.stderr()}`,
    );
    expect(await stopWith('SIGHUP')).toBe(0);
    expect(await webhookUrl()).toBe(OLD);
    expect(out.stderr()).toContain(`webhook URL put back to ${OLD}`);
  });

  // The next listener runs in this process: what it proves is its start and stop, not a signal's (SIGTERM's exit 0 is
  // the same requested stop as SIGHUP's above; for the sandbox, sandbox-command.test.ts).
  it('the next start puts back the wiring of a listener killed with SIGKILL and wires itself; a stop leaves a URL changed meanwhile as it is', async () => {
    world = await startWorld({ webhookUrl: OLD });
    const killed = await listen(world.env, []);
    const killedPid = listener!.pid;
    expect(await webhookUrl()).toBe(killed.url);
    expect(await stopWith('SIGKILL')).toBe(null);
    // Nothing ran at the kill: the URL is still the dead listener's.
    expect(await webhookUrl()).toBe(killed.url);
    const next = await listenHere(world.env, []);
    expect(next.stderr()).toContain(
      `webhook URL put back to ${OLD} (left set by a listener that was killed, pid ${killedPid})`,
    );
    expect(await webhookUrl()).toBe(next.url);
    await world.admin('POST', '/__sandbox/webhook', { url: 'http://127.0.0.1:9/changed' });
    expect(await next.stop()).toBe(0);
    expect(await webhookUrl()).toBe('http://127.0.0.1:9/changed');
  });

  // The process is the subject: once its catch-up has failed it must end by itself, its port closed, not stay up deaf.
  // The failure is one never sent again (a page that is not JSON: exit 8 at once), so the process ends on its first
  // answer; a 500 is the same end after four attempts and 2.6 to 3.5 s of back-off, which the listener's run in process
  // proves on the fake clock (unit/commands/webhook/listen-catch-up-error.test.ts).
  it('a --catch-up whose task list cannot be read ends the process with exit 8 (URL put back, port closed), without a signal', async () => {
    world = await startWorld({ webhookUrl: OLD });
    await world.admin('POST', '/__sandbox/faults', {
      method: 'GET',
      path: '/tasks',
      kind: 'non-json',
      status: 200,
      count: 100,
    });
    const out = await listen(world.env, ['--catch-up', '1h', '-o', 'ndjson']);
    const running = listener!;
    const code = await new Promise<number | null>((resolve, reject) => {
      const bound = setTimeout(() => {
        running.kill('SIGKILL'); // deaf to a first SIGTERM is the bug: afterEach's would not end it
        reject(new Error(`still running after 30 s: ${out.stderr()}`));
      }, 30_000);
      running.once('close', (exitCode) => {
        clearTimeout(bound);
        resolve(exitCode);
      });
    });
    listener = undefined;
    expect(code, out.stderr()).toBe(8);
    expect(out.stderr()).toMatch(/error: listing tasks: .*not JSON/);
    expect(out.stderr()).toContain('stopping (after the error above)');
    expect(out.stderr()).toContain(`webhook URL put back to ${OLD}`);
    expect(await webhookUrl()).toBe(OLD);
    const refused = await fetch(out.url, { method: 'POST' }).then(
      () => false,
      () => true,
    );
    expect(refused).toBe(true);
  });
});

/**
 * `webhook listen` at a terminal shows each event once: the event line on stdout says it all, so the access line of a
 * delivery it printed ("POST / → 200 …") is not written to the same screen. Piped, stdout keeps every event and
 * stderr keeps every access line, as before.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../../../src/main.js';
import { createMemoryIO } from '../../../../src/output/memory-io.js';
import { webhookHeaders } from '../../../../src/webhook/signature.js';
import { task } from '../../../hardening/scripted-server.js';
import { waitFor } from '../../../wait-for.js';
import { API_KEY, FakeClock } from '../run-in-process.js';

const event = (name: string, id = 7) =>
  JSON.stringify({
    event: name,
    timestamp: '2025-01-15T12:00:01.250Z',
    task: task(id, { status: name, platform: 'domain', completed_items: 1, failed_items: 0 }),
  });

async function listen(
  tty: boolean,
  headers: Record<string, string> = {},
  more: string[] = [],
): Promise<{ stdout: string; stderr: string; code: number }> {
  const memory = createMemoryIO({ stdoutTTY: tty, stderrTTY: tty, columns: 120 });
  const stop = new AbortController();
  const running = main(['webhook', 'listen', '--port', '0', '--no-color'], {
    io: memory.io,
    env: { TASKCTL_API_KEY: API_KEY, NO_COLOR: '1' },
    clock: new FakeClock(),
    signal: stop.signal,
  });
  const url = await waitFor(() => /listening for webhooks on (\S+);/.exec(memory.stderr.text())?.[1], {
    describe: () => `no "listening" line; stderr ${JSON.stringify(memory.stderr.text())}`,
  });
  const send = async (body: string) =>
    (await fetch(url, { method: 'POST', body, headers: { ...webhookHeaders(API_KEY), ...headers } })).status;
  expect(await send(event('completed'))).toBe(200);
  expect(await send(event('completed'))).toBe(200); // a repeat: shown as a duplicate
  expect(await fetch(url, { method: 'POST', body: '{}' }).then((r) => r.status)).toBe(401);
  for (const body of more) expect(await send(body)).toBe(200);
  stop.abort();
  const code = await running;
  return { stdout: memory.stdout.text(), stderr: memory.stderr.text(), code };
}

describe('webhook listen: each event once', () => {
  it('at a terminal: the event lines, without an access line repeating them; refusals still said', async () => {
    const { stdout, stderr, code } = await listen(true);
    expect(code).toBe(0);
    // The line of `watch`: time to the second, task, service, status, counts.
    const line = '2025-01-15T12:00:01Z  task 7       domain_check_availability  completed   1/1';
    expect(stdout.split('\n').filter((l) => l.startsWith(line))).toHaveLength(2);
    expect(stdout).toMatch(/\(duplicate, not handed on again\)/);
    expect(stderr).not.toMatch(/→ 200/);
    expect(stderr).toMatch(/POST \/ → 401 no X-Webhook-Signature header/);
    expect(stderr).not.toMatch(/warning/);
  });

  it('at a terminal: the columns line up whatever the ids and statuses that come later ("task 7" above "task 210")', async () => {
    const { stdout } = await listen(true, {}, [event('completed', 210), event('completed', 123456)]);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(4);
    const column = (text: string) => lines.map((line) => line.indexOf(text, 20));
    expect(new Set(column('domain_check_availability')).size).toBe(1);
    expect(new Set(lines.map((line) => /\d+\/1/.exec(line)?.index)).size).toBe(1);
  });

  it('a simulated event is labelled as such at a terminal; the same simulation delivered again is a repeat', async () => {
    const { stdout, code } = await listen(true, { 'X-Taskctl-Simulated': 'sim-3' });
    expect(code).toBe(0);
    const [first, ...rest] = stdout.trim().split('\n');
    expect(first).toMatch(/task 7 +domain_check_availability +completed +1\/1 +\(simulated\)$/);
    expect(rest.join(' ')).toMatch(/\(simulated\) +\(duplicate, not handed/);
  });

  it('piped: stdout has every event, stderr every access line, as before', async () => {
    const { stdout, stderr, code } = await listen(false);
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(stdout).toMatch(/^2025-01-15T12:00:01.250Z\tcompleted\t7\t/);
    expect(stderr.match(/POST \/ → 200 /g)).toHaveLength(2);
    expect(stderr).toMatch(/POST \/ → 401 /);
  });
});

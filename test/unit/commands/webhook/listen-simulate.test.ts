/**
 * `webhook listen` and `webhook simulate` in process: the listener runs on a real loopback port (it is a server), the
 * task comes from a MockAgent API, and Ctrl-C is the abort signal main() is given.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CLOSED_HOST, freePort } from '../../../e2e/spawn-cli.js';
import { task } from '../../../hardening/scripted-server.js';
import { waitFor } from '../../../wait-for.js';
import { API_KEY, mockApi, runTaskctl, type RunResult } from '../run-in-process.js';

const TASK = task(7);

/** POSTs `body` until the listener answers (it starts asynchronously), and returns the status. */
async function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  let last: unknown;
  return waitFor(
    async () => {
      try {
        const response = await fetch(url, { method: 'POST', body, headers });
        await response.arrayBuffer();
        return response.status;
      } catch (error) {
        last = error;
        return undefined;
      }
    },
    { describe: () => `the listener at ${url} refused every POST: ${String(last)}` },
  );
}

describe('webhook listen and simulate (in process)', () => {
  let stop: AbortController | undefined;
  afterEach(() => stop?.abort());

  it('simulate delivers a signed event that listen prints; each simulation is its own delivery; a wrong signature is 401; Ctrl-C is exit 0', async () => {
    // 127.0.0.6: loopback that no other test binds, so the port found free stays free until the listener takes it.
    const port = await freePort('127.0.0.6');
    const url = `http://127.0.0.6:${port}/`;
    stop = new AbortController();
    const listen = ['webhook', 'listen', '--host', '127.0.0.6', '--port', String(port), '-o', 'ndjson'];
    const listening: Promise<RunResult> = runTaskctl(listen, {
      env: { TASKCTL_API_KEY: API_KEY },
      signal: stop.signal,
    });
    expect(await post(url, '{}', { 'content-type': 'application/json', 'x-webhook-signature': 'wrong' })).toBe(401);

    const api = mockApi();
    api.reply('GET', '/tasks/7', 200, { success: true, data: TASK }, { times: 2 });
    const simulate = () => runTaskctl(['webhook', 'simulate', '7', '--event', 'failed', '--to', url], { api });
    const first = await simulate();
    expect(first, first.stderr).toMatchObject({ code: 0 });
    expect(first.stderr).toMatch(/delivered failed event for task 7 to http:\/\/127\.0\.0\.6:\d+\/: HTTP 200/);
    // Each simulation is a distinct delivery (X-Taskctl-Simulated): handed on again, not swallowed as a repeat.
    expect((await simulate()).code).toBe(0);
    api.assertAllUsed();

    stop.abort();
    const result = await listening;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`listening for webhooks on ${url}`);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    // The printed event is the event as sent: nothing in it says simulated (the status line on stderr does).
    for (const line of lines) {
      expect(JSON.parse(line)).toMatchObject({ event: 'failed', task: { id: 7, status: 'failed' } });
      expect(line).not.toContain('simulated');
    }
    expect(result.stderr).toMatch(/failed task 7 \(simulated\)/);
  });

  it('simulate with nothing listening is exit 8 saying so in words and what to do: no errno name, no "fetch failed"', async () => {
    // A loopback address no test binds, so the port found free stays unbound.
    const url = `http://${CLOSED_HOST}:${await freePort(CLOSED_HOST)}/hooks`;
    const api = mockApi();
    api.reply('GET', '/tasks/7', 200, { success: true, data: TASK });
    const result = await runTaskctl(['webhook', 'simulate', '7', '--event', 'completed', '--to', url], { api });
    expect(result.code).toBe(8);
    expect(result.stderr).toContain(`nothing is listening at ${url}`);
    expect(result.stderr).toMatch(/Start `taskctl webhook listen` first, or pass --to/);
    expect(result.stderr).not.toMatch(/ECONN|fetch failed|\bE[A-Z]{4,}\b/);
  });

  it('listen without an API key is exit 4 before it binds', async () => {
    const result = await runTaskctl(['webhook', 'listen', '--port', '0'], { env: { TASKCTL_API_KEY: undefined } });
    expect(result.code).toBe(4);
    expect(result.stderr).not.toContain('listening');
  });

  it('listen on a port in use is exit 2 naming the port and --port 0, not "a bug in taskctl"', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = busy.address() as AddressInfo;
      const result = await runTaskctl(['webhook', 'listen', '--port', String(port)], {
        env: { TASKCTL_API_KEY: API_KEY },
      });
      expect(result.stderr).toMatch(new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
      expect(result.stderr).toMatch(/--port 0/);
      expect(result.stderr).not.toMatch(/bug in taskctl/);
      expect(result.code).toBe(2);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});

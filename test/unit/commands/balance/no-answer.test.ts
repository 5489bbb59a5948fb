/**
 * A read the service does not answer is said after 5 s (as a wait's live block says a round with no answer): once, a
 * line on stderr in a script (with -q too: a quiet script must not look hung), the spinner's text on a terminal
 * (output/spinner-slot.ts; the harness's stderr is no real terminal, so it is checked by hand); nothing on stdout. The clock's notice timer is fired by `tick`, the request held by a gate until then.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../clock.js';
import { Gate } from '../gate.js';
import { API_KEY, BASE_URL, mockApi, runTaskctl, type RunOptions, type RunResult } from '../run-in-process.js';

const BALANCE = { success: true, data: { balance: 5, currency: 'coins' } };

/** `balance` with its one read held until `ms` of the clock passed (its notice timers fired), then answered. */
async function heldFor(ms: number, argv: string[], options: RunOptions = {}): Promise<RunResult> {
  const api = mockApi();
  api.reply('GET', '/balance', 200, BALANCE);
  const gate = new Gate(api.agent);
  const clock = new FakeClock();
  const env = { TASKCTL_BASE_URL: BASE_URL, TASKCTL_API_KEY: API_KEY, ...options.env };
  const running = runTaskctl(['balance', ...argv], { ...options, env, dispatcher: gate, clock });
  if (gate.held.length === 0) await once(gate.events, 'held');
  clock.tick(ms);
  gate.held[0]?.release();
  return running;
}

describe('a read with no answer yet', () => {
  it('in a script: one stderr line after 5 s, saying it is still trying within the request budget', async () => {
    const result = await heldFor(20_000, ['-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('no answer from the service for 5s; still trying (30s left)…\n');
    expect(JSON.parse(result.stdout)).toEqual({ balance: 5, currency: 'coins' });
  });

  it('an answer within 5 s says nothing', async () => {
    const result = await heldFor(4_900, ['-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
  });

  it('-q still says it, in one line: a silent script would look hung', async () => {
    const result = await heldFor(20_000, ['-q']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('no answer from the service for 5s; still trying (30s left)…\n');
    expect(result.stdout).toBe('5\n');
  });
});

describe('an answer still coming in after 5 s', () => {
  it('is said as such (what came so far), not as "no answer"', async () => {
    // A loopback server of the test's own: the status line, the headers and part of the body at once, the rest held.
    let finish: (() => void) | undefined;
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"success":true,"data":{"balance":5,');
      finish = () => response.end('"currency":"coins"}}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const clock = new FakeClock();
      const env = { TASKCTL_BASE_URL: `http://127.0.0.1:${port}/api/v1`, TASKCTL_API_KEY: API_KEY };
      const running = runTaskctl(['balance', '-o', 'json'], { env, clock });
      while (finish === undefined) await new Promise((resolve) => setImmediate(resolve));
      // The same process reads the loopback socket: a few turns of the event loop and the part sent has arrived.
      for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
      clock.tick(20_000);
      finish();
      const result = await running;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe('the answer from the service is still coming in (36 bytes in 5s, 30s left)…\n');
    } finally {
      server.close();
    }
  });
});

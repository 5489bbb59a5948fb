/**
 * The attempt's own timer is the one that cuts it, never undici's. undici's headersTimeout and bodyTimeout run on its
 * coarse timers (a tick each half second, a timer dated from the tick before the one that starts it), so on a
 * connection kept alive from an earlier request they may fire up to half a second before the time they were given:
 * `--request-timeout 1s` cut at 0.5 s, in the words of a headers timeout. The attempt passes them a second more than
 * its own cut, so they only stand behind it (src/api/request.ts).
 */
import { afterEach, expect, it } from 'vitest';
import type { Dispatcher, MockAgent } from 'undici';
import { JSON_HEADERS, makeClient, mockAgent, ok, TASK } from './mock-agent.js';

let agent: MockAgent;
afterEach(async () => {
  await agent.close();
});

/** `inner` with every dispatch's options recorded. */
function recording(inner: MockAgent): { dispatcher: Dispatcher; seen: Dispatcher.DispatchOptions[] } {
  const seen: Dispatcher.DispatchOptions[] = [];
  const dispatcher = Object.create(inner) as MockAgent;
  dispatcher.dispatch = (options, handler) => {
    seen.push(options);
    return inner.dispatch(options, handler);
  };
  return { dispatcher, seen };
}

it("gives undici's header and body timeouts a second more than the attempt's own cut, GET and POST", async () => {
  let pool;
  ({ agent, pool } = mockAgent());
  const headers = JSON_HEADERS;
  pool
    .intercept({ path: '/api/v1/balance', method: 'GET' })
    .reply(200, ok({ balance: 1, currency: 'coins' }), { headers });
  pool.intercept({ path: '/api/v1/tasks', method: 'POST' }).reply(201, ok(TASK), { headers });
  const { dispatcher, seen } = recording(agent);
  const { client } = makeClient(agent, { dispatcher, requestTimeoutMs: 1_000 });
  await client.getBalance();
  await client.createTask({ service: 's', items: ['a.com'] });
  expect(seen.map((o) => [o.method, o.headersTimeout, o.bodyTimeout])).toEqual([
    ['GET', 2_000, 2_000],
    ['POST', 2_000, 2_000],
  ]);
});

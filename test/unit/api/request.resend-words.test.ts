/**
 * What a person reads of a resend: the spinner's `…: no answer in 30s; trying again in 0.5s (attempt 2/4)` and the
 * notice of a long wait before one (`waiting 30s before trying again: …`, a line on stderr in a script) say why in
 * words, for every failure that is sent again; the codes (`TASKCTL_REQUEST_TIMEOUT`, `ECONNRESET`) stay in `--verbose`.
 * The words are few: after `reading task 1: ` the whole notice fits a spinner's line at 80 columns (75 columns: the
 * glyph and the three columns kept free), so `trying again` is never the part cut off.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MockAgent } from 'undici';
import { REQUEST_TIMEOUT_CODE } from '../../../src/api/resend-policy.js';
import { apiFailure, JSON_HEADERS, makeClient, mockAgent, networkError, ok, scriptedDispatcher } from './mock-agent.js';

let agent: MockAgent;
let pool: ReturnType<MockAgent['get']>;
afterEach(async () => {
  await agent.close();
});

const balancePath = { path: '/api/v1/balance', method: 'GET' };
const BALANCE = ok({ balance: 1, currency: 'coins' });

/** A raw code as a person should never read it: `TASKCTL_REQUEST_TIMEOUT`, `UND_ERR_SOCKET`, `ECONNRESET`. */
const RAW_CODE = /\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\bE[A-Z]{4,}\b|internal_error/;

/** What a spinner's text may take at 80 columns: the line budget (77) less the glyph and its space. */
const SPINNER_TEXT_AT_80 = 75;

function fitsAt80(message: string): boolean {
  return `reading task 1: ${message}`.length <= SPINNER_TEXT_AT_80;
}

/** The balance read once after `first` failed it, with what the client told of the resend and of long waits. */
async function resentAfter(first: (intercept: ReturnType<typeof pool.intercept>) => void) {
  ({ agent, pool } = mockAgent());
  first(pool.intercept(balancePath));
  pool.intercept(balancePath).reply(200, BALANCE, { headers: JSON_HEADERS });
  const resends: string[] = [];
  const waits: string[] = [];
  const trace: string[] = [];
  const { client } = makeClient(agent, {
    random: () => 0,
    onResend: (message) => resends.push(message),
    onWait: (_ms, message) => waits.push(message),
    trace: (line) => trace.push(line),
  });
  expect(await client.getBalance()).toEqual({ balance: 1, currency: 'coins' });
  return { resends, waits, trace };
}

describe('the reason of a resend, as a person reads it', () => {
  it.each([
    [REQUEST_TIMEOUT_CODE, 'no answer in 30s'],
    ['UND_ERR_HEADERS_TIMEOUT', 'no answer in 30s'],
    ['UND_ERR_BODY_TIMEOUT', 'no answer in 30s'],
    ['ECONNRESET', 'connection reset'],
    ['ECONNREFUSED', 'connection refused'],
    ['ETIMEDOUT', 'connection timed out'],
    ['UND_ERR_CONNECT_TIMEOUT', 'connection timed out'],
    ['UND_ERR_SOCKET', 'connection closed'],
    ['UND_ERR_CLOSED', 'connection closed'],
    ['EPIPE', 'connection closed'],
    ['ECONNABORTED', 'connection aborted'],
    ['EHOSTUNREACH', 'host unreachable'],
    ['ENETUNREACH', 'network unreachable'],
    ['ENETDOWN', 'network down'],
    ['EHOSTDOWN', 'host down'],
    ['ENOTFOUND', 'host name not found'],
    ['EAI_AGAIN', 'name lookup failed'],
  ])('%s: "%s"', async (code, words) => {
    const { resends, trace } = await resentAfter((i) => i.replyWithError(networkError(code)));
    expect(resends).toEqual([`${words}; trying again in 0.5s (attempt 2/4)`]);
    expect(fitsAt80(resends[0] ?? '')).toBe(true);
    // The code itself stays in the --verbose trace.
    expect(trace).toContain(`* trying again in 0.5s (${code}), attempt 2/4`);
  });

  it.each([
    [503, 'server error (HTTP 503)', apiFailure('service_unavailable', 'down')],
    [500, 'server error (HTTP 500)', apiFailure('internal_error', 'oops')],
    [502, 'server error (HTTP 502)', '<html>bad gateway</html>'],
    [408, 'timed out (HTTP 408)', apiFailure('request_timeout', 'slow')],
    [429, 'rate limited (HTTP 429)', apiFailure('rate_limited', 'slow down')],
  ])('HTTP %i: "%s"', async (status, words, body) => {
    const { resends } = await resentAfter((i) => i.reply(status, body, { headers: JSON_HEADERS }));
    expect(resends).toHaveLength(1);
    expect(resends[0]?.replace(/in [\d.]+s/, 'in Ns')).toBe(`${words}; trying again in Ns (attempt 2/4)`);
    expect(resends[0]).not.toMatch(RAW_CODE);
    expect(fitsAt80(resends[0] ?? '')).toBe(true);
  });

  it('an answer cut off: how far it came', async () => {
    const { resends } = await resentAfter((i) => i.reply(200, BALANCE.slice(0, 20), { headers: JSON_HEADERS }));
    expect(resends).toEqual(['answer cut off; trying again in 0.5s (attempt 2/4)']);
  });

  it('a body shorter than its Content-Length: the bytes received and announced', async () => {
    ({ agent } = mockAgent());
    const { dispatcher } = scriptedDispatcher([
      { status: 200, body: BALANCE, cutAfter: 28 },
      { status: 200, body: BALANCE },
    ]);
    const resends: string[] = [];
    const { client } = makeClient(agent, { dispatcher, random: () => 0, onResend: (m) => resends.push(m) });
    await client.getBalance();
    expect(resends).toEqual(['answer cut off; trying again in 0.5s (attempt 2/4)']);
  });

  it("the notice of a long wait before a resend (a 5xx's Retry-After) says why in words too", async () => {
    const { waits, resends } = await resentAfter((i) =>
      i.reply(503, apiFailure('internal_error', 'maintenance'), {
        headers: { ...JSON_HEADERS, 'retry-after': '30' },
      }),
    );
    expect(waits).toEqual(['waiting 30s before trying again: server error (HTTP 503)…']);
    expect(resends).toEqual(['server error (HTTP 503); trying again in 30s (attempt 2/4)']);
  });
});

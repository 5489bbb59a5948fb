/** Shared fakes for the API unit tests: the one fake clock (test/clock.ts) and a MockAgent-backed client. */
import { MockAgent, type Dispatcher } from 'undici';
import { createApiClient, type ApiClientOptions } from '../../../src/api/client.js';
import { RateLimiter } from '../../../src/api/rate-limit.js';
import { FakeClock, settle } from '../../clock.js';

export { FakeClock, settle, T0 } from '../../clock.js';

const ORIGIN = 'https://api.test';
const BASE_URL = `${ORIGIN}/api/v1`;
export const API_KEY = 'sk_live_SECRET_abcdef123456';
export function mockAgent(): { agent: MockAgent; pool: ReturnType<MockAgent['get']> } {
  const agent = new MockAgent();
  agent.disableNetConnect();
  return { agent, pool: agent.get(ORIGIN) };
}

export function networkError(code: string, message = `simulated ${code}`): Error {
  return Object.assign(new Error(message), { code });
}

export const JSON_HEADERS = { 'content-type': 'application/json' };

export function makeClient(agent: MockAgent, overrides: Partial<ApiClientOptions> = {}) {
  const clock = (overrides.clock as FakeClock | undefined) ?? new FakeClock();
  const client = createApiClient({
    baseUrl: BASE_URL,
    apiKey: API_KEY,
    userAgent: 'taskctl/0.1.0 node/v20.0.0',
    dispatcher: agent,
    clock,
    random: () => 0.5,
    rateLimiter: new RateLimiter({ clock }),
    ...overrides,
  });
  return { client, clock };
}

export const TASK = {
  id: 42,
  service: 'domain_check_availability',
  status: 'pending',
  total_items: 2,
  cost: 2,
  created_at: '2025-01-15T12:00:00Z',
  completed_at: null,
};

export function ok(data: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ success: true, data, ...extra });
}

export function apiFailure(code: string, message: string): string {
  return JSON.stringify({ success: false, error: { code, message } });
}

/** One scripted answer: its status and body; `cutAfter` bytes are sent of it before the connection closes. */
export interface ScriptedAnswer {
  status: number;
  body: string;
  cutAfter?: number;
}

/**
 * A dispatcher answering from a script, one answer per request (the last one repeats), each announcing the whole
 * body's Content-Length. With `cutAfter`, the body stops there and the read fails as undici's does when the server
 * closes the connection early (`UND_ERR_SOCKET`): the case MockAgent cannot play.
 */
export function scriptedDispatcher(answers: readonly ScriptedAnswer[]): {
  dispatcher: Dispatcher;
  calls: () => number;
} {
  let calls = 0;
  const dispatcher = {
    request() {
      const answer = answers[Math.min(calls, answers.length - 1)]!;
      calls++;
      const bytes = Buffer.from(answer.body);
      const sent = answer.cutAfter === undefined ? bytes : bytes.subarray(0, answer.cutAfter);
      return Promise.resolve({
        statusCode: answer.status,
        headers: { 'content-type': 'application/json', 'content-length': String(bytes.length) },
        body: {
          destroy: () => {},
          async *[Symbol.asyncIterator]() {
            await settle();
            if (sent.length > 0) yield sent;
            if (answer.cutAfter !== undefined) throw networkError('UND_ERR_SOCKET', 'other side closed');
          },
        },
      });
    },
    close: () => Promise.resolve(),
  } as unknown as Dispatcher;
  return { dispatcher, calls: () => calls };
}

/** Shared fakes for the API unit tests: a virtual clock and a MockAgent-backed client. */
import { MockAgent, type Dispatcher } from 'undici';
import type { Clock } from '../../../src/lib/time.js';
import { createApiClient, type ApiClientOptions } from '../../../src/api/client.js';
import { RateLimiter } from '../../../src/api/rate-limit.js';

const ORIGIN = 'https://api.test';
const BASE_URL = `${ORIGIN}/api/v1`;
export const API_KEY = 'sk_live_SECRET_abcdef123456';
export const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

/**
 * Fake time. `sleep` records the delay; in `auto` mode it advances `now` and resolves at once (for sequential code),
 * otherwise timers wait for `runUntilIdle()`, which jumps from timer to timer (for concurrent code). Never real time.
 */
export class FakeClock implements Clock {
  nowMs: number;
  readonly sleeps: number[] = [];
  readonly #auto: boolean;
  #timers: Array<{ at: number; resolve: () => void; seq: number }> = [];
  #seq = 0;

  constructor(options: { start?: number; auto?: boolean } = {}) {
    this.nowMs = options.start ?? T0;
    this.#auto = options.auto ?? true;
  }

  now(): number {
    return this.nowMs;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      signal?.throwIfAborted(); // a throw here rejects the promise with the signal's reason
      this.sleeps.push(ms);
      if (this.#auto) {
        this.nowMs += Math.max(0, ms);
        resolve();
        return;
      }
      const timer = { at: this.nowMs + Math.max(0, ms), resolve, seq: this.#seq++ };
      this.#timers.push(timer);
      signal?.addEventListener('abort', () => {
        this.#timers = this.#timers.filter((t) => t !== timer);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the signal's reason, as systemClock does
        reject(signal.reason);
      });
    });
  }

  get pendingTimers(): number {
    return this.#timers.length;
  }

  /** Lets promise chains settle, then fires timers in time order until nothing is scheduled. */
  async runUntilIdle(maxSteps = 100_000): Promise<void> {
    for (let step = 0; step < maxSteps; step++) {
      await settle();
      if (this.#timers.length === 0) return;
      this.#timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const timer = this.#timers.shift()!;
      this.nowMs = Math.max(this.nowMs, timer.at);
      timer.resolve();
    }
    throw new Error('runUntilIdle: too many steps');
  }
}

/** Lets pending promise callbacks run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

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

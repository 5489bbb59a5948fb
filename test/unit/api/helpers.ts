/** Shared fakes for the API unit tests: the one fake clock (test/unit/clock.ts) and a MockAgent-backed client. */
import { MockAgent } from 'undici';
import { createApiClient, type ApiClientOptions } from '../../../src/api/client.js';
import { RateLimiter } from '../../../src/api/rate-limit.js';
import { FakeClock } from '../clock.js';

export { FakeClock, settle, T0 } from '../clock.js';

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

import { DOCUMENTED_RATE_LIMIT } from '../api/constants.js';

/** Option defaults, exported so the CLI's `taskctl sandbox --help` shows the same values the sandbox uses. */
export const SANDBOX_DEFAULTS = {
  port: 8787,
  host: '127.0.0.1',
  apiKey: 'sk_sandbox_0000',
  balance: 10_000,
  itemMs: 200,
  rateLimit: DOCUMENTED_RATE_LIMIT,
  rateWindowMs: 60_000,
  maxItems: 10_000,
  webhookTimeScale: 1,
  webhookTimeoutMs: 30_000,
  seed: 'taskctl',
} as const;

/** Option defaults and validation: a bad value is a usage error (exit 2) naming the option. */
import { UsageError } from '../errors.js';
import { SANDBOX_DEFAULTS } from './defaults.js';
import type { SandboxOptions } from './types.js';
import type { DialectName } from './dialect-names.js';
import { resolveDialects } from './dialects.js';
import { checkWebhookUrl } from './loopback.js';

export interface ResolvedOptions {
  port: number;
  host: string;
  apiKey: string;
  balance: number;
  itemMs: number;
  rateLimit: number;
  rateWindowMs: number;
  maxItems: number;
  webhookUrl: string | undefined;
  webhookTimeScale: number;
  webhookTimeoutMs: number;
  seed: string;
  stateFile: string | undefined;
  now: () => number;
  log: (line: string) => void;
  dialects: DialectName[];
}

function check(name: string, value: number, ok: boolean, what: string): number {
  if (!Number.isFinite(value) || !ok) throw new UsageError(`sandbox ${name} must be ${what}, got ${value}`);
  return value;
}

export function resolveOptions(options: SandboxOptions): ResolvedOptions {
  const d = SANDBOX_DEFAULTS;
  const port = options.port ?? d.port;
  const balance = options.balance ?? d.balance;
  const itemMs = options.itemMs ?? d.itemMs;
  const rateLimit = options.rateLimit ?? d.rateLimit;
  const rateWindowMs = options.rateWindowMs ?? d.rateWindowMs;
  const maxItems = options.maxItems ?? d.maxItems;
  const timeScale = options.webhookTimeScale ?? d.webhookTimeScale;
  const timeoutMs = options.webhookTimeoutMs ?? d.webhookTimeoutMs;
  const apiKey = options.apiKey ?? d.apiKey;
  if (!/^[\x21-\x7e]{4,200}$/.test(apiKey))
    throw new UsageError('sandbox API key must be 4 to 200 printable characters without spaces');
  if (options.webhookUrl !== undefined) {
    const problem = checkWebhookUrl(options.webhookUrl);
    if (problem) throw new UsageError(problem);
  }
  const dialects = resolveDialects(options.dialects ?? []);
  if (typeof dialects === 'string') throw new UsageError(dialects, 'See them all: taskctl sandbox --dialect list.');
  const clock = options.clock;
  const skew = options.clockSkewMs ?? 0;
  check('clock skew', skew, Math.abs(skew) <= 24 * 3_600_000, 'within a day either way');
  const base = clock ? () => clock.now() : Date.now;
  return {
    port: check('port', port, Number.isInteger(port) && port >= 0 && port <= 65_535, 'an integer from 0 to 65535'),
    host: options.host ?? d.host,
    apiKey,
    balance: check('balance', balance, Number.isSafeInteger(balance) && balance >= 0, 'a non-negative integer'),
    itemMs: check('item-ms', itemMs, itemMs >= 0, 'a non-negative number of milliseconds'),
    rateLimit: check('rate-limit', rateLimit, Number.isInteger(rateLimit) && rateLimit >= 0, 'a non-negative integer'),
    rateWindowMs: check(
      'rate-window',
      rateWindowMs,
      Number.isInteger(rateWindowMs) && rateWindowMs >= 1000 && rateWindowMs % 1000 === 0,
      'whole seconds, at least 1s',
    ),
    maxItems: check('max-items', maxItems, Number.isInteger(maxItems) && maxItems >= 1, 'a positive integer'),
    webhookUrl: options.webhookUrl,
    webhookTimeScale: check('webhook-time-scale', timeScale, timeScale >= 0, 'a non-negative number'),
    webhookTimeoutMs: check('webhook timeout', timeoutMs, timeoutMs > 0, 'a positive number of milliseconds'),
    seed: String(options.seed ?? d.seed),
    stateFile: options.stateFile,
    now: skew === 0 ? base : () => base() + skew,
    log: options.log ?? (() => {}),
    dialects,
  };
}

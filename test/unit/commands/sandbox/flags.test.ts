/**
 * Every flag `taskctl sandbox --help` documents reaches the sandbox's options under its own meaning (commander names an
 * option after its flag, so `--rate-window` arrives as `rateWindow`, never as `rateWindowMs`).
 */
import { describe, expect, it, vi } from 'vitest';
import type { SandboxOptions } from '../../../../src/sandbox/index.js';
import { runTaskctl } from '../run-in-process.js';

const launched: SandboxOptions[] = [];

vi.mock('../../../../src/sandbox/launch.js', () => ({
  launchSandbox: (options: SandboxOptions) => {
    launched.push(options);
    return Promise.resolve({
      url: 'http://127.0.0.1:1/api/v1',
      origin: 'http://127.0.0.1:1',
      dashboard: 'http://127.0.0.1:1/',
      apiKey: options.apiKey,
      close: () => Promise.resolve(),
    });
  },
}));

describe('taskctl sandbox flags', () => {
  it('each documented flag reaches the sandbox options', async () => {
    const stopped = new AbortController();
    stopped.abort();
    const result = await runTaskctl(
      [
        'sandbox',
        ...['--port', '0', '--host', '127.0.0.2', '--api-key', 'sk_flags_1', '--balance', '7'],
        ...['--item-ms', '3', '--rate-limit', '2', '--rate-window', '10s', '--max-items', '9'],
        ...['--webhook-url', 'http://127.0.0.1:9/h', '--webhook-time-scale', '0.5', '--seed', 's1'],
        ...['--state', 'sb.json', '--dialect', 'created-200', '--clock-skew', '-3s'],
      ],
      { signal: stopped.signal },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(launched.at(-1)).toMatchObject({
      port: 0,
      host: '127.0.0.2',
      apiKey: 'sk_flags_1',
      balance: 7,
      itemMs: 3,
      rateLimit: 2,
      rateWindowMs: 10_000,
      maxItems: 9,
      webhookUrl: 'http://127.0.0.1:9/h',
      webhookTimeScale: 0.5,
      seed: 's1',
      stateFile: 'sb.json',
      dialects: ['created-200'],
      clockSkewMs: -3_000,
    });
  });
});

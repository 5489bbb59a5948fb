/**
 * `auth status` while the rate limit holds: a 429 does not say whether the service looked at the key first, so the key
 * is not known to work nor to fail (never "no": the rate-limit hint sends people here), exit 7 as the 429 itself; and
 * the window the service gave is shown, as the rate-limit hint of every other command promises.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSandbox } from '../../../../src/sandbox/index.js';
import { T0 } from '../../../clock.js';
import { runTaskctl } from '../run-in-process.js';

let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let home: string;
beforeEach(async () => {
  sandbox = await startSandbox({ port: 0, itemMs: 0, rateLimit: 2, rateWindowMs: 3_600_000 });
  home = mkdtempSync(join(tmpdir(), 'taskctl-auth-rate-'));
});
afterEach(async () => {
  await sandbox.close();
  rmSync(home, { recursive: true, force: true });
});

const run = (argv: string[], tty = false) =>
  runTaskctl(argv, {
    home,
    stdoutTTY: tty,
    columns: 80,
    env: { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey, NO_COLOR: '1' },
  });

async function spendTheBudget(): Promise<void> {
  for (let i = 0; i < 3; i++)
    await fetch(`${sandbox.url}/balance`, { headers: { 'X-API-Key': sandbox.apiKey } }).then((r) => r.arrayBuffer());
}

it('says the key is not known now, rate-limited, with the reset the service gave, exit 7', async () => {
  await spendTheBudget();
  const balance = await run(['balance']);
  expect(balance.code).toBe(7);
  expect(balance.stderr).toContain('`taskctl auth status` shows it');

  const result = await run(['auth', 'status'], true);
  expect(result.code).toBe(7);
  expect(result.stdout + result.stderr).not.toMatch(/Key works: +(no|yes)\b/);
  expect(result.stdout).toMatch(/Key works: +not known now \(rate-limited until the reset\)\n/);
  // The wait is whole minutes at times (`in 23m`): no seconds then.
  expect(result.stdout).toMatch(
    /Rate limit: +0\/2 requests left, resets \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(in \d+[hms](\d+[ms])*\)/,
  );
});

it('-o json: key_works null, the rate limit as key_error, rate_limit with nothing left and the reset', async () => {
  await spendTheBudget();
  const result = await run(['auth', 'status', '-o', 'json']);
  expect(result.code).toBe(7);
  const json = JSON.parse(result.stdout) as Record<string, unknown>;
  expect(json.key_works).toBeNull();
  expect(json.key_error).toEqual(expect.stringMatching(/rate limit/i));
  expect(json.rate_limited).toBe(true);
  expect(json.rate_limit).toMatchObject({ remaining: 0, limit: 2 });
  const resets = Date.parse((json.rate_limit as { resets_at: string }).resets_at);
  // The sandbox's windows are fixed (aligned), so the reset is within the hour (an hour: a window ending mid-test is
  // unlikely), past the 61 s the limiter itself keeps to.
  expect(resets - T0).toBeGreaterThan(0);
  expect(resets - T0).toBeLessThanOrEqual(3_600_000);
});

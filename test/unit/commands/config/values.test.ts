/** `config set` numbers follow the rule of the flags: a whole number typed as digits, refused in the same words. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runTaskctl } from '../harness.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});
function freshHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'taskctl-config-'));
  homes.push(home);
  return home;
}

describe('config set confirm-above: the rule of --max-cost', () => {
  // Number() reads each of these as a number (1000, 16, 5, 0, 1): a flag refuses them, so the setting does.
  it.each(['1e3', '0x10', ' 5', '', '1.0', '-1', 'abc', '9007199254740993'])('%j is refused', async (value) => {
    const home = freshHome();
    const set = await runTaskctl(['config', 'set', 'confirm-above', '--', value], { home });
    const flag = await runTaskctl(['create', 'x', 'a.com', '--dry-run', '--max-cost', value], { home });
    expect(set.code).toBe(2);
    expect(flag.code).toBe(2);
    const why = 'expected a whole number (0 or more).';
    expect(set.stderr.split('\n')[0]).toBe(`error: confirm-above "${value}": ${why}`);
    expect(flag.stderr.split('\n')[0]).toBe(`error: --max-cost "${value}": ${why}`);
    expect((await runTaskctl(['config', 'get', 'confirm-above'], { home })).stdout).toBe('1000\n');
  });

  it.each([
    ['0', '0'],
    ['5000', '5000'],
    ['00012', '12'],
  ])('%j is taken as %s', async (value, stored) => {
    const home = freshHome();
    expect((await runTaskctl(['config', 'set', 'confirm-above', value], { home })).code).toBe(0);
    expect((await runTaskctl(['config', 'get', 'confirm-above'], { home })).stdout).toBe(`${stored}\n`);
  });
});

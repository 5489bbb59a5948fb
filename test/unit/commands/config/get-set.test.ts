/**
 * `config get`, `set` and `list`: a setting nothing sets is read as the default each command uses, marked as such in
 * `list`; a number set follows the rule of the number flags, refused in the same words.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runTaskctl } from '../run-in-process.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});
function freshHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'taskctl-config-'));
  homes.push(home);
  return home;
}

/** What `config get` prints for every key with nothing set (stdout not a terminal: the output a command uses is tsv). */
const DEFAULTS: Array<[string, string]> = [
  ['profile', 'default'],
  ['base-url', ''],
  ['output', 'tsv'],
  ['confirm-above', '1000'],
  ['auth-scheme', 'x-api-key'],
  ['request-timeout', '35s'],
  ['outage-tolerance', '2m'],
  ['job-retention', '720h'],
  ['api-key', ''],
];

describe('config get: the effective value, its default when nothing sets it', () => {
  it.each(DEFAULTS)('config get %s prints %j', async (key, value) => {
    const result = await runTaskctl(['config', 'get', key], { home: freshHome(), env: { TASKCTL_OUTPUT: undefined } });
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
      code: 0,
      stdout: `${value}\n`,
      stderr: '',
    });
  });

  it('the output a terminal gets is table; -o says what this run uses', async () => {
    const home = freshHome();
    expect((await runTaskctl(['config', 'get', 'output'], { home, stdoutTTY: true })).stdout).toBe('table\n');
    expect((await runTaskctl(['config', 'get', 'output', '-o', 'csv'], { home })).stdout).toBe('csv\n');
  });

  it('every default printed is a value `config set` takes, and get then prints it as set', async () => {
    const home = freshHome();
    for (const [key, value] of DEFAULTS) {
      if (value === '' || key === 'profile') continue;
      const set = await runTaskctl(['config', 'set', key, value], { home });
      expect(set.code, set.stderr).toBe(0);
      expect((await runTaskctl(['config', 'get', key], { home })).stdout).toBe(`${value}\n`);
    }
  });
});

describe('config list: defaults marked as such', () => {
  it('every setting nothing sets is listed with source default and its value', async () => {
    const result = await runTaskctl(['config', 'list', '-o', 'json'], { home: freshHome() });
    const rows = JSON.parse(result.stdout) as Array<{ key: string; value: unknown; source: string; origin: unknown }>;
    expect(rows.filter((row) => row.key !== 'output').map((row) => [row.key, row.source, row.value])).toEqual([
      ['profile', 'default', 'default'],
      ['base-url', 'default', null],
      ['confirm-above', 'default', 1000],
      ['auth-scheme', 'default', 'x-api-key'],
      ['request-timeout', 'default', '35s'],
      ['outage-tolerance', 'default', '2m'],
      ['job-retention', 'default', '720h'],
      ['api-key', 'default', null],
    ]);
  });
});

describe('config --help: the settings and their defaults', () => {
  it('every description starts in one column, its wrapped lines too', async () => {
    const result = await runTaskctl(['config', '--help']);
    const block = /\nSettings:\n([\s\S]*?)\n\n/.exec(result.stdout)?.[1] ?? '';
    const starts = block.split('\n').map((line) => /^ {2}[a-z-]+ +|^ +/.exec(line)?.[0].length);
    expect(starts.length).toBeGreaterThan(7);
    expect(new Set(starts)).toEqual(new Set([starts[0]]));
  });
});

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

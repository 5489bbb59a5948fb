/**
 * `config list` in the machine formats (tsv, csv, json) carries machine values: each setting's value as `config get`
 * prints it and `config set` takes it (`35s`, not the table's `35s (create: 1m per attempt)`; `tsv`, not `table on a
 * terminal, tsv otherwise`), an origin only where a flag, the environment or a profile set it (empty, or null in json,
 * never `-` or `not set`). The table keeps its words for people.
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

/** Nothing set but the output, by `-o`. */
async function list(format: string, home = freshHome()) {
  const result = await runTaskctl(['config', 'list', '-o', format], { home });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

const TSV = [
  'profile\tdefault\tdefault\t',
  'base-url\t\tdefault\t',
  'output\ttsv\tflag\t--output',
  'confirm-above\t1000\tdefault\t',
  'auth-scheme\tx-api-key\tdefault\t',
  'request-timeout\t35s\tdefault\t',
  'outage-tolerance\t2m\tdefault\t',
  'job-retention\t720h\tdefault\t',
  'api-key\t\tdefault\t',
];

describe('config list in the machine formats: machine values', () => {
  it('tsv: each value as `config get` prints it, FROM empty where nothing more is said', async () => {
    expect(await list('tsv')).toBe(`${TSV.join('\n')}\n`);
  });

  it('csv: the same fields under their keys', async () => {
    const csv = [
      'key,value,source,origin',
      ...TSV.map((line) => line.replaceAll('\t', ',').replace('output,tsv', 'output,csv')),
    ];
    expect(await list('csv')).toBe(`${csv.join('\n')}\n`);
  });

  it('json: the same values, null where there is none', async () => {
    const rows = JSON.parse(await list('json')) as Array<Record<string, unknown>>;
    expect(rows.find((row) => row.key === 'request-timeout')).toEqual({
      key: 'request-timeout',
      value: '35s',
      source: 'default',
      origin: null,
    });
    expect(rows.find((row) => row.key === 'base-url')).toEqual({
      key: 'base-url',
      value: null,
      source: 'default',
      origin: null,
    });
  });

  it('a value set is listed as stored, with where it was set', async () => {
    const home = freshHome();
    expect((await runTaskctl(['config', 'set', 'request-timeout', '90s'], { home })).code).toBe(0);
    expect(await list('tsv', home)).toMatch(/^request-timeout\t90s\tprofile\tprofile "default"$/m);
  });

  it('every value listed in tsv is the one `config get` prints', async () => {
    const home = freshHome();
    for (const line of (await list('tsv', home)).trimEnd().split('\n')) {
      const [key, value] = line.split('\t');
      const get = await runTaskctl(['config', 'get', key ?? '', '-o', 'tsv'], { home });
      expect([key, get.stdout]).toEqual([key, `${value ?? ''}\n`]);
    }
  });

  it('the table keeps its words for people', async () => {
    const result = await runTaskctl(['config', 'list'], {
      home: freshHome(),
      stdoutTTY: true,
      columns: 120,
      env: { NO_COLOR: '1' },
    });
    expect(result.stdout).toMatch(/^request-timeout +35s \(create: 1m per attempt\) +default +-$/m);
    expect(result.stdout).toMatch(/^base-url +- +default +not set$/m);
    // A value as `config set` takes it, as before: no thousands separator in a setting.
    expect(result.stdout).toMatch(/^confirm-above +1000 +default +-$/m);
  });
});

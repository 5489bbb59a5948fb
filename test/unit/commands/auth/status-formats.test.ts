/**
 * `auth status -o csv|tsv`: the machine keys and types of `-o json` (docs/behaviour.md#types-kept), flattened into
 * columns: a boolean, plain digits, an ISO time; never the sentences a terminal shows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSandbox } from '../../../../src/sandbox/index.js';
import { runTaskctl } from '../run-in-process.js';

let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let home: string;
beforeEach(async () => {
  sandbox = await startSandbox({ port: 0, itemMs: 0, balance: 12_345 });
  home = mkdtempSync(join(tmpdir(), 'taskctl-auth-formats-'));
});
afterEach(async () => {
  await sandbox.close();
  rmSync(home, { recursive: true, force: true });
});

const run = (argv: string[]) =>
  runTaskctl(argv, { home, env: { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey } });

const COLUMNS = [
  'profile',
  'base_url',
  'base_url_source',
  'key',
  'key_source',
  'key_works',
  'key_error',
  'balance',
  'currency',
  'rate_limit_remaining',
  'rate_limit_limit',
  'rate_limit_resets_at',
  'rate_limited',
];

it('-o csv: the json keys as columns, true/false, plain digits, an ISO reset', async () => {
  const result = await run(['auth', 'status', '-o', 'csv']);
  expect(result.code, result.stderr).toBe(0);
  const [header, row, more] = result.stdout.split('\n');
  expect(header?.split(',')).toEqual(COLUMNS);
  expect(more).toBe('');
  const cells = Object.fromEntries(COLUMNS.map((name, i) => [name, row?.split(',')[i]]));
  expect(cells).toMatchObject({
    key_works: 'true',
    key_error: '',
    balance: '12345',
    currency: 'coins',
    rate_limited: 'false',
  });
  expect(cells.rate_limit_remaining).toMatch(/^\d+$/);
  expect(cells.rate_limit_limit).toMatch(/^\d+$/);
  expect(cells.rate_limit_resets_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
});

it('-o tsv: the same values, one row, no header', async () => {
  const result = await run(['auth', 'status', '-o', 'tsv']);
  expect(result.code, result.stderr).toBe(0);
  const rows = result.stdout.trimEnd().split('\n');
  expect(rows).toHaveLength(1);
  const cells = rows[0]?.split('\t') ?? [];
  expect(cells).toHaveLength(COLUMNS.length);
  expect(cells[COLUMNS.indexOf('key_works')]).toBe('true');
  expect(cells[COLUMNS.indexOf('balance')]).toBe('12345');
});

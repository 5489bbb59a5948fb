/** store/account-aliases.ts: accounts.json in the state directory, as every state file: private, atomic, no link followed. */
import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { accountsOf, addAlias, aliasesPath, readAliases } from '../../../src/store/account-aliases.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function stateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-aliases-'));
  dirs.push(dir);
  return join(dir, 'state');
}

const pair = (account: string, same_as: string) => ({ account, same_as, job: 'j-abcd1234', task: 7, at: 'now' });

it('made on first use (0700 directory, 0600 file); a pair already there is not added twice', () => {
  const dir = stateDir();
  expect(readAliases(dir)).toEqual([]);
  addAlias(dir, pair('b', 'a'));
  addAlias(dir, pair('b', 'a'));
  addAlias(dir, pair('c', 'a'));
  expect(readAliases(dir).map((a) => [a.account, a.same_as])).toEqual([
    ['b', 'a'],
    ['c', 'a'],
  ]);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  expect(statSync(aliasesPath(dir)).mode & 0o777).toBe(0o600);
  expect(readFileSync(aliasesPath(dir), 'utf8')).not.toMatch(/sk_/);
});

it('a symlink in its place is never read through nor written through: replaced, its target untouched', () => {
  const dir = stateDir();
  addAlias(dir, pair('x', 'y')); // makes the directory
  const target = join(dir, '..', 'elsewhere.json');
  writeFileSync(target, JSON.stringify({ version: 1, aliases: [pair('b', 'a')] }));
  rmSync(aliasesPath(dir));
  symlinkSync(target, aliasesPath(dir));
  expect(readAliases(dir)).toEqual([]); // a pair read through a link would accept a job without a proof
  addAlias(dir, pair('c', 'a'));
  expect(lstatSync(aliasesPath(dir)).isSymbolicLink()).toBe(false);
  expect(readAliases(dir).map((a) => a.account)).toEqual(['c']);
  expect(JSON.parse(readFileSync(target, 'utf8'))).toEqual({ version: 1, aliases: [pair('b', 'a')] });
});

it('garbage counts as no pair (the account is proved again), and the next pair replaces it', () => {
  const dir = stateDir();
  addAlias(dir, pair('x', 'y'));
  writeFileSync(aliasesPath(dir), '{"version": 1, "aliases": [{"account": 1}]}');
  expect(readAliases(dir)).toEqual([]);
  addAlias(dir, pair('b', 'a'));
  expect(readAliases(dir).map((a) => a.account)).toEqual(['b']);
});

it('keys proved one account are one account through each other, never without a pair', () => {
  const pair = (account: string, same_as: string) => ({ account, same_as, job: null, task: 1, at: '' });
  const aliases = [pair('b', 'a'), pair('c', 'a'), pair('e', 'd')];
  expect([...accountsOf(aliases, 'c')].sort()).toEqual(['a', 'b', 'c']);
  expect(accountsOf(aliases, 'a').has('c')).toBe(true);
  expect(accountsOf(aliases, 'a').has('d')).toBe(false);
  expect([...accountsOf(aliases, 'e')].sort()).toEqual(['d', 'e']);
  expect([...accountsOf([], 'a')]).toEqual(['a']);
});

import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configDirectory, openConfig } from '../../../src/store/config-file.js';
import { UsageError } from '../../../src/errors.js';
import { notRunningPid } from '../pids.js';
import { chmodFails, readOnlyFs, whileFailingFs, withFailingFs, writesFailUnder } from './failing-fs.js';

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'taskctl-config-'));
  dir = join(root, 'cfg');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

describe('configDirectory', () => {
  it('prefers TASKCTL_CONFIG_DIR, then XDG_CONFIG_HOME, then ~/.config', () => {
    const home = () => '/home/u';
    expect(configDirectory({ TASKCTL_CONFIG_DIR: '/a', XDG_CONFIG_HOME: '/b' }, home)).toBe('/a');
    expect(configDirectory({ XDG_CONFIG_HOME: '/b' }, home)).toBe('/b/taskctl');
    expect(configDirectory({}, home)).toBe('/home/u/.config/taskctl');
  });
});

describe('openConfig', () => {
  it('reads nothing and creates nothing until a value is set; then writes 0600 in a 0700 directory', async () => {
    const config = await openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {});
    expect(config.profile('default')).toEqual({});
    expect(() => statSync(dir)).toThrow();
    await config.set('default', 'api-key', 'sk_test_1234');
    expect(mode(dir)).toBe(0o700);
    expect(mode(config.path)).toBe(0o600);
    expect(JSON.parse(readFileSync(config.path, 'utf8'))).toEqual({
      profiles: { default: { 'api-key': 'sk_test_1234' } },
    });
  });

  it.each(['/proc/nope/cfg', 'dangling'])(
    'refuses a directory that cannot be made (%s) at once, with exit 2 and the next step',
    { timeout: 2_000 },
    async (where) => {
      if (where === 'dangling') symlinkSync(join(root, 'gone'), join(root, 'dangling'));
      const configDir = where === 'dangling' ? join(root, 'dangling', 'cfg') : where;
      const config = await openConfig({ TASKCTL_CONFIG_DIR: configDir }, () => {});
      // At once: the directory is refused before any lock wait, so a spin is caught by the test's timeout.
      const error = await config.set('default', 'api-key', 'sk_test_1234').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toMatch(
        where === 'dangling'
          ? `cannot make the config directory ${configDir}: ${join(root, 'dangling')} is a symlink to nothing (dangling)`
          : /^cannot make the config directory \/proc\/nope\/cfg: \/proc\/nope cannot be made/,
      );
      expect((error as UsageError).hint).toBe('Set TASKCTL_CONFIG_DIR to a writable directory.');
    },
  );

  it('tightens a looser file and directory, with a warning for each', async () => {
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'config.json'), '{"profiles":{}}', { mode: 0o644 });
    chmodSync(join(dir, 'config.json'), 0o644);
    const warnings: string[] = [];
    await openConfig({ TASKCTL_CONFIG_DIR: dir }, (w) => warnings.push(w));
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'config.json'))).toBe(0o600);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatch(/readable by others \(644\); tightened to 600/);
  });

  it('keeps profiles apart and removes empty ones on unset', async () => {
    const config = await openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {});
    await config.set('work', 'output', 'json');
    await config.set('default', 'confirm-above', 50);
    expect(config.profile('work')).toEqual({ output: 'json' });
    await config.unset('work', 'output');
    expect(config.profileNames()).toEqual(['default']);
    const reopened = await openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {});
    expect(reopened.profile('default')).toEqual({ 'confirm-above': 50 });
  });

  it('update sets several values of one profile in one change, keeping its other values and the other profiles', async () => {
    const config = await openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {});
    await config.set('default', 'output', 'json');
    await config.set('work', 'api-key', 'sk_test_work');
    await config.update('default', { 'base-url': 'https://api.example.com/api/v1', 'api-key': 'sk_test_1234' });
    const reopened = await openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {});
    expect(reopened.profile('default')).toEqual({
      output: 'json',
      'base-url': 'https://api.example.com/api/v1',
      'api-key': 'sk_test_1234',
    });
    expect(reopened.profile('work')).toEqual({ 'api-key': 'sk_test_work' });
  });

  it.each(['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'])(
    'a profile named %s is an ordinary name: set, read back, reopened and unset',
    async (name) => {
      const config = await openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {});
      expect(config.profile(name)).toEqual({});
      expect(config.profileNames()).toEqual([]);
      await config.set(name, 'output', 'json');
      await config.set(name, 'api-key', 'sk_test_1234');
      expect(config.profile(name)).toEqual({ output: 'json', 'api-key': 'sk_test_1234' });
      expect(config.profile('default')).toEqual({});
      const written = JSON.parse(readFileSync(config.path, 'utf8')) as { profiles: object };
      expect(Object.getOwnPropertyNames(written.profiles)).toEqual([name]);
      const reopened = await openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {});
      expect(reopened.profileNames()).toEqual([name]);
      expect(reopened.profile(name)).toEqual({ output: 'json', 'api-key': 'sk_test_1234' });
      await reopened.unset(name, 'api-key');
      await reopened.unset(name, 'output');
      expect(reopened.profileNames()).toEqual([]);
      expect(readFileSync(config.path, 'utf8')).not.toContain(name);
    },
  );

  it('a file already holding a __proto__ profile is read as it is, the others kept beside it', async () => {
    mkdirSync(dir, { mode: 0o700 });
    const text = '{"profiles":{"__proto__":{"api-key":"sk_a"},"work":{"output":"tsv"}}}';
    writeFileSync(join(dir, 'config.json'), text, { mode: 0o600 });
    const config = await openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {});
    expect(config.profileNames()).toEqual(['__proto__', 'work']);
    expect(config.profile('__proto__')).toEqual({ 'api-key': 'sk_a' });
    await config.set('work', 'output', 'json');
    expect(readFileSync(config.path, 'utf8')).toContain('"__proto__": {\n\t\t\t"api-key": "sk_a"');
    writeFileSync(join(dir, 'config.json'), '{"profiles":{"__proto__":{"output":"xml"}}}', { mode: 0o600 });
    await expect(openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {})).rejects.toThrow(
      `the config file ${join(dir, 'config.json')} is invalid at profiles.__proto__.output: should be one of`,
    );
  });

  it('refuses invalid JSON and invalid values with a usage error naming the file', async () => {
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, 'config.json'), '{\n  "profiles": {},\n  nope\n}', { mode: 0o600 });
    await expect(openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {})).rejects.toThrow(
      expect.objectContaining({
        message: `the config file ${join(dir, 'config.json')} is not valid JSON (unexpected 'n' at line 3, column 3)`,
        exitCode: 2,
      }),
    );
    // A character named as in an items file (the one namer, lib/sanitize.ts): `U+0009 (tab)`.
    writeFileSync(join(dir, 'config.json'), '{"profiles":"a\tb"}', { mode: 0o600 });
    await expect(openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {})).rejects.toThrow(
      `the config file ${join(dir, 'config.json')} is not valid JSON (unexpected U+0009 (tab) at character 15)`,
    );
    writeFileSync(join(dir, 'config.json'), '{"profiles":\u007f{}}', { mode: 0o600 });
    await expect(openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {})).rejects.toThrow(
      `the config file ${join(dir, 'config.json')} is not valid JSON (unexpected U+007F (delete) at character 13)`,
    );
    writeFileSync(join(dir, 'config.json'), '{"profiles":{"default":{"output":"xml"}}}', { mode: 0o600 });
    await expect(openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {})).rejects.toThrow(
      `the config file ${join(dir, 'config.json')} is invalid at profiles.default.output: should be one of "table", "tsv", "csv", "json", "ndjson"`,
    );
    // Its advice is what works: `config set`/`unset` read the file first, and so refuse it the same way.
    await expect(openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {})).rejects.toMatchObject({
      hint: 'Fix the file in an editor, or move it away and run `taskctl auth login` again.',
    });
  });
});

describe("a config it cannot change (a read-only file system, another user's file)", () => {
  const WORDS: Record<string, string> = {
    EROFS: 'the file system is read-only',
    EPERM: 'permission denied',
    EACCES: 'permission denied',
  };

  it.each(['EROFS', 'EPERM', 'EACCES'])(
    '%s: reads a looser file and directory as they are; one warning, for the file that may hold keys',
    async (code) => {
      mkdirSync(dir, { mode: 0o755 });
      chmodSync(dir, 0o755);
      const file = join(dir, 'config.json');
      writeFileSync(file, '{"profiles":{"default":{"output":"json"}}}', { mode: 0o644 });
      chmodSync(file, 0o644);
      const warnings: string[] = [];
      // The store's work is synchronous: the whole read happens inside the call, the failure played around it.
      const opened = withFailingFs(chmodFails(code), () =>
        openConfig({ TASKCTL_CONFIG_DIR: dir }, (w) => warnings.push(w)),
      );
      expect((await opened).profile('default')).toEqual({ output: 'json' });
      expect(mode(dir)).toBe(0o755);
      expect(mode(file)).toBe(0o644);
      expect(warnings).toEqual([
        `config file ${file} is readable by others (644) and cannot be tightened to 600 (${WORDS[code]})`,
      ]);
    },
  );

  it('a change on a read-only file system is exit 2 in words, with the next step; nothing written', async () => {
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, 'config.json'), '{"profiles":{}}', { mode: 0o600 });
    const config = await openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {});
    const changed = withFailingFs(readOnlyFs, () => config.set('default', 'output', 'csv'));
    const error = await changed.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    // Its lock is the first thing written: the message names it, in words.
    expect((error as UsageError).message).toBe(
      `cannot lock the config file (${join(dir, 'config.json.lock')}): the file system is read-only`,
    );
    expect((error as UsageError).hint).toBe(
      'Its file system is read-only: set TASKCTL_CONFIG_DIR to another directory.',
    );
    expect(readdirSync(dir)).toEqual(['config.json']);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe('{"profiles":{}}');
  });
});

describe('config files are what they claim to be', () => {
  const open = () => openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {});

  it('a full disk: the advice asks for space (never the permissions), at the directory, the lock and the file', async () => {
    const full = writesFailUnder(root);
    const made = await whileFailingFs(full, async () =>
      (await openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {})).set('default', 'output', 'csv'),
    ).catch((e: unknown) => e);
    expect(made).toMatchObject({
      exitCode: 2,
      message: `cannot make the config directory ${dir}: ${dir} cannot be made: the disk is full`,
      hint: 'Free space there, or set TASKCTL_CONFIG_DIR to another directory.',
    });
    mkdirSync(dir, { mode: 0o700 });
    const config = await openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {});
    const locked = await whileFailingFs(full, () => config.set('default', 'output', 'csv')).catch((e: unknown) => e);
    expect(locked).toMatchObject({
      exitCode: 2,
      message: `cannot lock the config file (${join(dir, 'config.json.lock')}): the disk is full`,
      hint: 'Free space there, or set TASKCTL_CONFIG_DIR to another directory.',
    });
    // The lock taken, the file's temp finds the disk full.
    const fileOnly: typeof full = (name, args) => (String(args[0]).includes('.lock') ? undefined : full(name, args));
    const written = await whileFailingFs(fileOnly, () => config.set('default', 'output', 'csv')).catch(
      (e: unknown) => e,
    );
    expect(written).toMatchObject({
      exitCode: 2,
      message: `cannot write the config file ${join(dir, 'config.json')}: the disk is full`,
      hint: 'Free space there, or set TASKCTL_CONFIG_DIR to another directory.',
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a symlinked config.json with exit 2 and never chmods its target', async () => {
    mkdirSync(dir, { mode: 0o700 });
    const target = join(root, 'elsewhere.json');
    writeFileSync(target, '{"profiles":{}}', { mode: 0o644 });
    chmodSync(target, 0o644);
    symlinkSync(target, join(dir, 'config.json'));
    const error = await open().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as Error).message).toMatch(/config\.json is a symbolic link, not a regular file/);
    expect(mode(target)).toBe(0o644);
  });

  it('refuses a directory as config.json', async () => {
    mkdirSync(join(dir, 'config.json'), { recursive: true });
    await expect(open()).rejects.toThrow(/is a directory, not a regular file/);
  });

  it('refuses to write through a symlink that appeared after opening', async () => {
    const config = await open();
    mkdirSync(dir, { mode: 0o700 });
    const target = join(root, 'victim');
    writeFileSync(target, 'untouched');
    symlinkSync(target, join(dir, 'config.json'));
    await expect(config.set('default', 'output', 'json')).rejects.toThrow(/symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('untouched');
  });
});

describe('config changes are read-modify-write under a lock', () => {
  const open = (timeoutMs?: number) => openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {}, timeoutMs);
  const lockPath = () => join(dir, 'config.json.lock');

  it('keeps a change another process made after this one opened the file', async () => {
    const first = await open();
    const second = await open();
    await first.set('default', 'output', 'json');
    await second.set('default', 'confirm-above', 5);
    await second.set('work', 'auth-scheme', 'bearer');
    await first.unset('work', 'auth-scheme');
    const reopened = await open();
    expect(reopened.profile('default')).toEqual({ output: 'json', 'confirm-above': 5 });
    expect(reopened.profileNames()).toEqual(['default']);
    expect(existsSync(lockPath())).toBe(false);
  });

  it('takes over a lock left by a process that no longer runs', async () => {
    mkdirSync(dir, { mode: 0o700 });
    // time-lint: system time (the config's lock wait reads the OS clock: a lock dated T0 would be stale by its age)
    writeFileSync(lockPath(), JSON.stringify({ pid: notRunningPid(), host: hostname(), at: Date.now(), token: 'x' }));
    const config = await open(200);
    await config.set('default', 'output', 'csv');
    expect((await open()).profile('default')).toEqual({ output: 'csv' });
    expect(existsSync(lockPath())).toBe(false);
  });

  it('takes over a lock older than its bound even if the pid runs (pids are reused)', async () => {
    mkdirSync(dir, { mode: 0o700 });
    // time-lint: system time (the config's lock wait reads the OS clock: 60 s before it is past the 30 s bound)
    const at = Date.now() - 60_000;
    writeFileSync(lockPath(), JSON.stringify({ pid: process.ppid, host: hostname(), at, token: 'x' }));
    await (await open(200)).set('default', 'output', 'csv');
    expect(existsSync(lockPath())).toBe(false);
  });

  it('waits for a live lock, then gives up with exit 2 naming the holder and the lock file; nothing written', async () => {
    mkdirSync(dir, { mode: 0o700 });
    // time-lint: system time (the config's lock wait reads the OS clock: a live lock must be younger than its bound)
    const lock = JSON.stringify({ pid: process.ppid, host: hostname(), at: Date.now(), token: 'live' });
    writeFileSync(lockPath(), lock);
    const error = await (await open(300)).set('default', 'output', 'csv').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(
      new RegExp(`locked by process ${process.ppid} on .*, still after 0\\.3s; nothing was changed`),
    );
    // A lock is taken over once stale: waiting is always enough, deleting a live holder's lock never advised.
    expect((error as UsageError).hint).toBe(
      'Try again: a lock is taken over once its process has ended, or once it is 30s old.',
    );
    expect(readFileSync(lockPath(), 'utf8')).toBe(lock);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('removes temp files a killed writer left, and leaves none of its own', async () => {
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, '.config.json.99999.deadbeef.tmp'), '{"profiles":{"half');
    await (await open()).set('default', 'output', 'json');
    expect(readdirSync(dir)).toEqual(['config.json']);
  });
});

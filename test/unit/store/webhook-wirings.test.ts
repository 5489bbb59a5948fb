/** The record of sandbox webhook URLs set by running listeners: who is left behind, and the hand-over on removal. */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebhookWirings, type Wiring } from '../../../src/store/webhook-wirings.js';
import { bootedAt, notRunningPid, OTHER_BOOT, OTHER_PIDNS } from '../pids.js';
import { T0 } from '../../clock.js';

const SANDBOX = 'http://127.0.0.1:8787';
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'taskctl-wirings-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function seed(wirings: Wiring[]): void {
  writeFileSync(join(dir, 'webhook-wirings.json'), JSON.stringify({ version: 1, wirings }));
}

describe('WebhookWirings', () => {
  it('refuses a cache directory that cannot be made at once, with exit 2 and the next step', { timeout: 2_000 }, () => {
    const store = new WebhookWirings('/proc/nope/c');
    // At once: synchronous with no sleep, so it either throws its answer or spins.
    expect(() => store.add({ sandbox: SANDBOX, url: 'http://127.0.0.1:1/a', previous: null, at: 1 })).toThrow(
      expect.objectContaining({
        exitCode: 2,
        message: expect.stringMatching(/^cannot make the cache directory \/proc\/nope\/c: \/proc\/nope cannot be made/),
        hint: 'Set TASKCTL_CACHE_DIR to a writable directory.',
      }),
    );
  });

  it('records a wiring of this process in a private file, and removes it', () => {
    const store = new WebhookWirings(dir);
    const wiring = store.add({ sandbox: SANDBOX, url: 'http://127.0.0.1:1/a', previous: null, at: 1 });
    expect(wiring).toMatchObject({ pid: process.pid, host: hostname() });
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    expect(store.find(wiring)).toEqual(wiring);
    store.remove(wiring);
    expect(store.find(wiring)).toBeUndefined();
  });

  it('hands a removed wiring’s previous URL on to the wiring that replaced it', () => {
    const store = new WebhookWirings(dir);
    const first = store.add({ sandbox: SANDBOX, url: 'http://127.0.0.1:1/a', previous: 'http://127.0.0.1:9/x', at: 1 });
    const second = store.add({ sandbox: SANDBOX, url: 'http://127.0.0.1:2/b', previous: first.url, at: 2 });
    store.remove(first);
    expect(store.find(second)?.previous).toBe('http://127.0.0.1:9/x');
  });

  it('finds the wirings left by dead processes of this host for one sandbox, newest first', () => {
    const dead = notRunningPid();
    const base = { host: hostname(), previous: null, at: 1 };
    seed([
      { ...base, pid: dead, sandbox: SANDBOX, url: 'http://127.0.0.1:1/old' },
      { ...base, pid: process.pid, sandbox: SANDBOX, url: 'http://127.0.0.1:2/alive' },
      { ...base, pid: dead, sandbox: 'http://127.0.0.1:9999', url: 'http://127.0.0.1:3/other-sandbox' },
      { ...base, pid: dead, host: 'another-machine', sandbox: SANDBOX, url: 'http://127.0.0.1:4/elsewhere' },
      { ...base, pid: dead, sandbox: SANDBOX, url: 'http://127.0.0.1:5/newer' },
    ]);
    const left = new WebhookWirings(dir).leftBehind(SANDBOX).map((w) => w.url);
    expect(left).toEqual(['http://127.0.0.1:5/newer', 'http://127.0.0.1:1/old']);
  });

  it.runIf(process.platform === 'linux')(
    'judges a listener as a lock owner: another container is running, a pid from before this boot has ended',
    () => {
      const store = new WebhookWirings(dir);
      const mine = store.add({ sandbox: SANDBOX, url: 'http://127.0.0.1:1/mine', previous: null, at: T0 });
      expect(mine).toMatchObject({ boot: expect.any(String), pidns: expect.stringMatching(/^pid:\[\d+\]$/) });
      const base = { host: hostname(), previous: null, sandbox: SANDBOX };
      seed([
        { ...base, pid: notRunningPid(), pidns: OTHER_PIDNS, at: T0, url: 'http://127.0.0.1:2/container' },
        {
          ...base,
          pid: process.ppid,
          boot: OTHER_BOOT,
          at: bootedAt() - 60_000,
          url: 'http://127.0.0.1:3/before-boot',
        },
      ]);
      expect(store.leftBehind(SANDBOX).map((w) => w.url)).toEqual(['http://127.0.0.1:3/before-boot']);
    },
  );

  it('starts afresh from a corrupt file', () => {
    writeFileSync(join(dir, 'webhook-wirings.json'), '{not json');
    const store = new WebhookWirings(dir);
    expect(store.leftBehind(SANDBOX)).toEqual([]);
    store.add({ sandbox: SANDBOX, url: 'http://127.0.0.1:1/a', previous: null, at: 1 });
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toMatchObject({
      version: 1,
      wirings: [{ url: 'http://127.0.0.1:1/a' }],
    });
  });
});

/**
 * Lock files step by step: node:fs is wrapped so that a check runs before every file-system call the lock code makes
 * (a killed process stops between two of them), and so that a file system without hard links can be played. The mock
 * needs a module graph of its own: this file is in the `isolated` project (vitest.config.ts).
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { lockHolder, tryLock } from '../../../src/store/lock-file.js';
import { notRunningPid } from '../pids.js';
import { T0 } from '../../clock.js';

type Fs = typeof import('node:fs');
/** `before` runs ahead of every `*Sync` call of node:fs (with the real module, so it can look without recursing). */
const fsHook = vi.hoisted(() => ({
  before: undefined as ((name: string, args: unknown[], real: Fs) => void) | undefined,
}));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<Fs>();
  const wrapped = Object.fromEntries(
    Object.entries(real).map(([name, value]) => {
      if (typeof value !== 'function' || !name.endsWith('Sync')) return [name, value];
      return [
        name,
        (...args: unknown[]) => {
          fsHook.before?.(name, args, real);
          return (value as (...a: unknown[]) => unknown)(...args);
        },
      ];
    }),
  );
  return { ...wrapped, default: wrapped };
});

let dir: string;
let lockPath: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'taskctl-lock-steps-'));
  lockPath = join(dir, 'file.lock');
});
afterEach(() => {
  fsHook.before = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const owner = (pid: number, at = T0) => JSON.stringify({ pid, host: hostname(), at, token: 'other' });

/** What the lock path holds at each step when it exists and names no owner (pid, host, time). */
function watchLockPath(): { checks: number; ownerless: string[] } {
  const watch = { checks: 0, ownerless: [] as string[] };
  fsHook.before = (_name, _args, real) => {
    let text: string;
    try {
      text = real.readFileSync(lockPath, 'utf8');
    } catch {
      return; // no lock file at this step
    }
    watch.checks++;
    try {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      if (typeof parsed.pid === 'number' && typeof parsed.host === 'string' && typeof parsed.at === 'number') return;
    } catch {
      // not JSON: recorded below
    }
    watch.ownerless.push(text);
  };
  return watch;
}

function held(result: ReturnType<typeof tryLock>) {
  if (!('release' in result)) throw new Error(`not locked: held by ${JSON.stringify(result.heldBy)}`);
  return result;
}

/** A link(2) that fails with `code` for the lock path itself, as on a file system without hard links. */
function failLinksToLock(code: string): { attempts: number } {
  const seen = { attempts: 0 };
  fsHook.before = (name, args) => {
    if (name !== 'linkSync' || args[1] !== lockPath) return;
    seen.attempts++;
    throw Object.assign(new Error(`${code}: link`), { code });
  };
  return seen;
}

describe('a lock file is never seen without its owner', () => {
  it('before every file-system step of taking, refusing, taking over and releasing, an existing lock names its owner', () => {
    const fresh = watchLockPath();
    const first = held(tryLock(lockPath));
    expect(tryLock(lockPath)).toHaveProperty('heldBy.pid', process.pid);
    first.release();

    fsHook.before = undefined;
    writeFileSync(lockPath, owner(notRunningPid())); // a holder that died: taken over
    const dead = watchLockPath();
    held(tryLock(lockPath)).release();

    fsHook.before = undefined;
    writeFileSync(lockPath, owner(process.ppid, T0 - 120_000)); // live, but older than the bound: taken over
    const old = watchLockPath();
    held(tryLock(lockPath, { staleAfterMs: 60_000, now: () => T0 })).release();

    fsHook.before = undefined;
    for (const watch of [fresh, dead, old]) {
      expect(watch.ownerless).toEqual([]);
      expect(watch.checks).toBeGreaterThan(0); // the check did look at a lock file
    }
    expect(readdirSync(dir)).toEqual([]); // and no temp file is left beside it
  });

  it('a reader between any two steps of a taker learns the owner, never "someone"', () => {
    const seen: unknown[] = [];
    let taking = false;
    fsHook.before = () => {
      if (!taking) return;
      taking = false; // lockHolder's own steps are not looked into
      seen.push(lockHolder(lockPath));
      taking = true;
    };
    taking = true;
    const lock = held(tryLock(lockPath));
    taking = false;
    lock.release();
    const named = seen.filter((holder) => holder !== undefined);
    expect(named.length).toBeGreaterThan(0);
    for (const holder of named) expect(holder).toMatchObject({ pid: process.pid, host: hostname() });
  });
});

describe('on a file system without hard links', () => {
  it.each(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'])(
    'link failing with %s: the lock is created and then written, as before',
    (code) => {
      const links = failLinksToLock(code);
      const lock = held(tryLock(lockPath));
      expect(links.attempts).toBe(1);
      expect(lockHolder(lockPath)).toMatchObject({ pid: process.pid, host: hostname() });
      expect(tryLock(lockPath)).toHaveProperty('heldBy.pid', process.pid);
      expect(readdirSync(dir)).toEqual(['file.lock']); // no temp left beside it
      lock.release();
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it('a lock of a dead holder is taken over there too', () => {
    writeFileSync(lockPath, owner(notRunningPid()));
    failLinksToLock('EPERM');
    const lock = held(tryLock(lockPath));
    expect(lockHolder(lockPath)).toMatchObject({ pid: process.pid });
    lock.release();
    fsHook.before = undefined;
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a failed write of the lock (a full disk) is thrown, and no empty lock is left in the way', () => {
    fsHook.before = (name, args) => {
      if (name === 'linkSync' && args[1] === lockPath) throw Object.assign(new Error('EPERM: link'), { code: 'EPERM' });
      if (name === 'writeSync') throw Object.assign(new Error('ENOSPC: write'), { code: 'ENOSPC' });
    };
    expect(() => tryLock(lockPath)).toThrow(expect.objectContaining({ code: 'ENOSPC' }));
    fsHook.before = undefined;
    expect(readdirSync(dir)).toEqual([]);
  });

  it('any other failure of the link is thrown, and the temp file is removed', () => {
    failLinksToLock('EIO');
    expect(() => tryLock(lockPath)).toThrow(expect.objectContaining({ code: 'EIO' }));
    fsHook.before = undefined;
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('an owner file that cannot be written', () => {
  it('(a full disk) is an error thrown, and nothing is left beside the lock', () => {
    fsHook.before = (name, args, real) => {
      if (name !== 'writeFileSync' || !String(args[0]).startsWith(`${lockPath}.new.`)) return;
      real.writeFileSync(args[0] as string, ''); // created, then the write fails
      throw Object.assign(new Error('ENOSPC: write'), { code: 'ENOSPC' });
    };
    expect(() => tryLock(lockPath)).toThrow(expect.objectContaining({ code: 'ENOSPC' }));
    fsHook.before = undefined;
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('a temp file that vanishes before its link', () => {
  it('(removed by a process on another machine sharing the directory) is written again', () => {
    let removed = 0;
    fsHook.before = (name, args, real) => {
      if (name !== 'linkSync' || args[1] !== lockPath || removed > 0) return;
      removed++;
      real.unlinkSync(args[0] as string);
    };
    const lock = held(tryLock(lockPath));
    expect(removed).toBe(1);
    expect(lockHolder(lockPath)).toMatchObject({ pid: process.pid });
    lock.release();
    fsHook.before = undefined;
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('the leftovers of killed takers', () => {
  it('are looked for once per directory, not once per lock: many locks taken in one directory read it once', () => {
    const dead = `lock-7.lock.new.${notRunningPid()}.0badf00d`; // beside a lock taken after the directory was read
    writeFileSync(join(dir, dead), owner(notRunningPid()));
    for (let n = 0; n < 50; n++) writeFileSync(join(dir, `job-${n}.jsonl`), '');
    let reads = 0;
    fsHook.before = (name, args) => {
      if (name === 'readdirSync' && args[0] === dir) reads++;
    };
    for (let n = 0; n < 20; n++) held(tryLock(join(dir, `lock-${n}.lock`))).release();
    fsHook.before = undefined;
    expect(reads).toBe(1);
    expect(readdirSync(dir)).not.toContain(dead);
  });
});

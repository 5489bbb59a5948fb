import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { NotRegularFileError } from '../../../src/store/atomic-file.js';
import {
  heldLockHint,
  holderWords,
  holdLock,
  lockHolder,
  lockTimeoutError,
  tryLock,
  waitForLock,
} from '../../../src/store/lock-file.js';
import { bootedAt, notRunningPid, OTHER_BOOT, OTHER_PIDNS, thisBoot, thisPidns } from '../pids.js';
import { FakeClock, T0 } from '../../clock.js';
import { skippedUnless } from '../../skip-reason.js';

let dir: string;
let lockPath: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'taskctl-lock-'));
  lockPath = join(dir, 'file.lock');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const owner = (pid: number, at = T0, token = 'other') => JSON.stringify({ pid, host: hostname(), at, token });

describe('lock files', () => {
  it('one holder at a time; the second learns who holds it', () => {
    const first = tryLock(lockPath);
    expect('release' in first).toBe(true);
    const second = tryLock(lockPath);
    expect(second).toEqual({ heldBy: expect.objectContaining({ pid: process.pid, host: hostname() }) });
    if ('release' in first) first.release();
    expect('release' in tryLock(lockPath)).toBe(true);
  });

  it('a holder whose lock was taken over as stale does not remove its successor on release', () => {
    const first = tryLock(lockPath, { now: () => T0 - 120_000 });
    if (!('release' in first)) throw new Error('not locked');
    const second = tryLock(lockPath, { staleAfterMs: 60_000, now: () => T0 }); // the first looks hung: older than the bound
    if (!('release' in second)) throw new Error('stale lock not taken over');
    first.release();
    expect(tryLock(lockPath)).toHaveProperty('heldBy');
    second.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a lock of a dead pid is taken over; one of a live pid on another host is not (the pid says nothing there)', () => {
    const pid = notRunningPid();
    writeFileSync(lockPath, owner(pid));
    expect('release' in tryLock(lockPath)).toBe(true);
    rmSync(lockPath);
    writeFileSync(lockPath, JSON.stringify({ pid, host: 'another-host.example', at: T0, token: 'x' }));
    expect(tryLock(lockPath)).toHaveProperty('heldBy.host', 'another-host.example');
  });

  it('a stale lock moved aside by a process killed before it removed it is removed by the next holder', () => {
    const dead = notRunningPid();
    const leftover = `file.lock.stale.${dead}.0badf00d`;
    const live = `file.lock.stale.${process.ppid}.0badf00d`; // a process breaking a lock right now: not its to remove
    writeFileSync(join(dir, leftover), owner(notRunningPid()));
    writeFileSync(join(dir, live), owner(notRunningPid()));
    writeFileSync(join(dir, 'file.lock.stale.notes'), 'not an aside'); // a name that is no aside stays too
    const held = tryLock(lockPath);
    if (!('release' in held)) throw new Error('not locked');
    held.release();
    expect(readdirSync(dir).sort()).toEqual([live, 'file.lock.stale.notes'].sort());
  });

  it("the owner file of a taker killed before it put it in place is removed by the next holder, a live one's is not", () => {
    const dead = `file.lock.new.${notRunningPid()}.0badf00d`;
    const live = `file.lock.new.${process.ppid}.0badf00d`; // a process taking the lock right now
    writeFileSync(join(dir, dead), owner(notRunningPid()));
    writeFileSync(join(dir, live), owner(process.ppid));
    writeFileSync(join(dir, 'file.lock.new.notes'), 'not a temp'); // a name that is no temp stays too
    const held = tryLock(lockPath);
    if (!('release' in held)) throw new Error('not locked');
    expect(readdirSync(dir).sort()).toEqual([live, 'file.lock', 'file.lock.new.notes'].sort());
    held.release();
    expect(readdirSync(dir).sort()).toEqual([live, 'file.lock.new.notes'].sort());
  });

  it('a lock that cannot be made (no directory) is an error about the lock, not about its owner file', () => {
    const missing = join(dir, 'missing', 'file.lock');
    expect(() => tryLock(missing)).toThrow(
      expect.objectContaining({ code: 'ENOENT', path: missing, message: expect.not.stringContaining('.new.') }),
    );
  });

  it('an unreadable lock (written by an older taskctl, or garbage) is someone being born for a few seconds, then stale', () => {
    writeFileSync(lockPath, '');
    expect(tryLock(lockPath)).toEqual({ heldBy: undefined });
    // time-lint: system time (an unreadable lock is judged by its file's mtime, which the OS dates)
    expect('release' in tryLock(lockPath, { now: () => Date.now() + 10_000 })).toBe(true);
  });

  it('waits while a live process holds the lock, up to the timeout', () => {
    writeFileSync(lockPath, owner(process.ppid));
    const clock = new FakeClock();
    // The lock's sleep is synchronous: the fake clock's (auto) records the pause and moves time on before it returns.
    const sleep = (ms: number) => void clock.sleep(ms);
    expect(waitForLock(lockPath, 150, { now: () => clock.now(), sleep })).toHaveProperty('heldBy.pid', process.ppid);
    expect(clock.now() - T0).toBeGreaterThanOrEqual(150); // it tried again until the deadline, on the injected clock
    expect(clock.now() - T0).toBeLessThan(150 + 12); // and not past it by more than one short, jittered pause
    expect(clock.sleeps.length).toBeGreaterThan(10);
    for (const ms of clock.sleeps) expect(ms).toBeGreaterThanOrEqual(2);
    expect(readFileSync(lockPath, 'utf8')).toBe(owner(process.ppid, JSON.parse(readFileSync(lockPath, 'utf8')).at));
  });

  it('the hint for a held lock never advises deleting a live holder: only a reused number or another machine', () => {
    const held = tryLock(lockPath);
    if (!('release' in held)) throw new Error('not locked');
    const here = tryLock(lockPath);
    if ('release' in here) throw new Error('locked twice');
    expect(heldLockHint(here.heldBy, lockPath, 'Wait for that run to end')).toBe(
      'Wait for that run to end: its lock goes with it (a lock whose process has ended is taken over). ' +
        `Only if \`ps -p ${process.pid} -o args=\` shows no taskctl (its number reused), delete ${lockPath}.`,
    );
    held.release();
    const elsewhere = { pid: 4242, host: 'build-7', at: T0, token: 'x' };
    expect(heldLockHint(elsewhere, lockPath, 'Wait for that run to end')).toBe(
      'Wait for that run to end. A lock taken on build-7 cannot be checked from here: only if process 4242 there is ' +
        `no taskctl, delete ${lockPath}.`,
    );
    expect(heldLockHint(undefined, lockPath, 'Wait')).toBe(
      'Try again in a few seconds: the lock was taken a moment ago.',
    );
  });
});

const LINUX = process.platform === 'linux';
describe.runIf(LINUX)(
  skippedUnless(
    'whose pid a lock names: this boot, this pid namespace',
    LINUX,
    'boot ids and pid namespaces are Linux',
  ),
  () => {
    const boot = thisBoot;
    const pidns = thisPidns;
    const OTHER_NS = OTHER_PIDNS;
    /**
     * An owner of this host written by hand, with the boot and pid namespace given, taken a minute after this machine
     * booted by default (the OS's boot time is the subject here: an owner of another boot taken since is a twin).
     */
    const world = (pid: number, extra: { boot: string; pidns: string }, at = bootedAt() + 60_000) =>
      JSON.stringify({ pid, host: hostname(), at, token: 'other', ...extra });

    it('a lock names the boot and the pid namespace of its holder', () => {
      const held = tryLock(lockPath);
      if (!('release' in held)) throw new Error('not locked');
      expect(JSON.parse(readFileSync(lockPath, 'utf8'))).toMatchObject({
        pid: process.pid,
        boot: boot(),
        pidns: pidns(),
      });
      held.release();
    });

    it('this boot and pid namespace: the pid is looked at (dead: taken over; running: held)', () => {
      writeFileSync(lockPath, world(notRunningPid(), { boot: boot(), pidns: pidns() }));
      expect('release' in tryLock(lockPath)).toBe(true);
      rmSync(lockPath);
      writeFileSync(lockPath, world(process.ppid, { boot: boot(), pidns: pidns() }));
      expect(tryLock(lockPath)).toHaveProperty('heldBy.pid', process.ppid);
    });

    it('taken before this machine booted: stale, even when its pid runs now (a number reused since)', () => {
      writeFileSync(lockPath, world(process.ppid, { boot: OTHER_BOOT, pidns: pidns() }, bootedAt() - 60_000));
      expect(lockHolder(lockPath)).toBeUndefined();
      expect('release' in tryLock(lockPath)).toBe(true);
    });

    it('another boot id, taken since this boot: another machine of the same name, held whatever its pid', () => {
      writeFileSync(lockPath, world(notRunningPid(), { boot: OTHER_BOOT, pidns: pidns() }));
      const refused = tryLock(lockPath);
      if ('release' in refused) throw new Error('a lock of another machine was taken');
      expect(heldLockHint(refused.heldBy, lockPath, 'Wait')).toMatch(
        `A lock taken on another machine named ${hostname()} cannot be checked from here: only if process`,
      );
    });

    it('another pid namespace of this boot (another container): held whatever its pid, and the hint says so', () => {
      const dead = notRunningPid();
      writeFileSync(lockPath, world(dead, { boot: boot(), pidns: OTHER_NS }));
      expect(lockHolder(lockPath)).toMatchObject({ pid: dead, pidns: OTHER_NS });
      const refused = tryLock(lockPath);
      if ('release' in refused) throw new Error('a lock of another container was taken');
      expect(heldLockHint(refused.heldBy, lockPath, 'Wait for that run to end')).toBe(
        `Wait for that run to end. A lock taken in another container of this machine (pid namespace ${OTHER_NS}) ` +
          `cannot be checked from here: only if process ${dead} there is no taskctl, delete ${lockPath}.`,
      );
      const error = lockTimeoutError('config file', lockPath, refused.heldBy, {
        timeoutMs: 10_000,
        staleAfterMs: 30_000,
      });
      expect(error.message).toContain(`locked by process ${dead} in another container of this machine`);
      // Its age still counts where an age bound is set (a config lock held 30 s is hung wherever its holder is).
      expect('release' in tryLock(lockPath, { staleAfterMs: 1, now: () => bootedAt() + 61_000 })).toBe(true);
    });

    it('an owner of an earlier version (no boot id, no pid namespace) is judged by its pid, as before', () => {
      writeFileSync(lockPath, owner(process.ppid));
      expect(tryLock(lockPath)).toHaveProperty('heldBy.pid', process.ppid);
      rmSync(lockPath);
      writeFileSync(lockPath, owner(notRunningPid()));
      expect('release' in tryLock(lockPath)).toBe(true);
    });
  },
);

describe('a lock held for a process’s life (holdLock)', () => {
  const refusals = {
    cannot: (reason: string) => new UsageError(`cannot lock: ${reason}`, 'Pass another file.'),
    inUse: (holder: Parameters<typeof holderWords>[0]) => new UsageError(`in use by ${holderWords(holder)}`, 'Wait.'),
  };

  it('is taken, then refused in the caller’s words naming the holder, and taken again once released', () => {
    const held = holdLock(lockPath, refusals);
    expect(() => holdLock(lockPath, refusals)).toThrow(`in use by process ${process.pid} on this machine`);
    held.release();
    holdLock(lockPath, refusals).release();
  });

  it('that cannot be made is exit 2 in the caller’s words, the reason in words (no errno code)', () => {
    expect(() => holdLock(join(dir, 'missing', 'file.lock'), refusals)).toThrow(
      expect.objectContaining({ exitCode: 2, message: 'cannot lock: no such file or directory' }),
    );
  });
});

/**
 * Something other than a lock file at a lock's path. Each is opened as every state file is (O_NOFOLLOW, O_NONBLOCK, then
 * fstat): the FIFO itself, whose blocking open would hang this worker, is proved by spawned processes in
 * test/e2e/store-locks.test.ts; here, the same refusal on what cannot block.
 */
describe('a lock path that is no lock file', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  const refusal = (kind: string) =>
    expect.objectContaining({
      constructor: NotRegularFileError,
      exitCode: 2,
      message: `the lock file ${lockPath} is ${kind}, not a regular file; taskctl does not follow or read it`,
      hint: 'Remove it (taskctl makes its lock there, as a regular file, when it needs one), then try again.',
    });
  const noSleep = () => {
    throw new Error('waited on something that is no lock');
  };
  const refusals = {
    cannot: (reason: string) => new UsageError(`cannot lock: ${reason}`, 'Pass another file.'),
    inUse: () => new UsageError('in use', 'Wait.'),
  };

  /** Every way a lock is read refuses it at once (no wait, no take-over), and nothing is left beside it. */
  function refusedEverywhere(kind: string): void {
    const before = readdirSync(dir).sort();
    expect(() => tryLock(lockPath)).toThrow(refusal(kind));
    // Stale by any bound: still never taken over (moved aside and removed) as an unreadable lock would be.
    // time-lint: system time (past the grace of an unreadable lock, which is judged by the mtime the OS dates)
    expect(() => tryLock(lockPath, { staleAfterMs: 1, now: () => Date.now() + 60_000 })).toThrow(refusal(kind));
    expect(() => waitForLock(lockPath, 10_000, { sleep: noSleep })).toThrow(refusal(kind));
    expect(() => lockHolder(lockPath)).toThrow(refusal(kind));
    expect(() => holdLock(lockPath, refusals)).toThrow(refusal(kind)); // in its own words, not the caller's `cannot`
    expect(readdirSync(dir).sort()).toEqual(before);
  }

  it('a directory', () => {
    mkdirSync(lockPath);
    refusedEverywhere('a directory');
  });

  it('a symbolic link, to a lock or to nothing: never followed', () => {
    const target = join(dir, 'elsewhere.lock');
    writeFileSync(target, owner(notRunningPid()));
    symlinkSync(target, lockPath);
    refusedEverywhere('a symbolic link');
    expect(readFileSync(target, 'utf8')).toContain('"token":"other"'); // not taken over through the link
    rmSync(target);
    refusedEverywhere('a symbolic link');
  });

  it.runIf(process.platform !== 'win32')('a socket', async () => {
    server = createServer();
    await new Promise<void>((resolve) => server?.listen(lockPath, resolve));
    refusedEverywhere('a socket');
  });

  it('a lock replaced by something else while held: its release leaves that alone, and does not throw', () => {
    const held = tryLock(lockPath);
    if (!('release' in held)) throw new Error('not locked');
    rmSync(lockPath);
    mkdirSync(lockPath);
    held.release();
    expect(readdirSync(dir)).toEqual(['file.lock']);
  });
});

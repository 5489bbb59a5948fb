/**
 * A lock file beside the file it guards (`config.json.lock`), created with O_EXCL and holding its owner's pid, host and
 * start time. Node has no flock, and O_EXCL creation is atomic on every local file system. A lock whose owner is gone
 * (same host, pid no longer running), or older than `staleAfterMs`, is taken over.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename } from 'node:path';
import { UsageError } from '../errors.js';
import { formatDuration } from '../lib/duration.js';
import { removeSiblings } from './atomic-file.js';

/** node:crypto when a lock is taken, not when the module loads: every command loads this one (3 ms at start-up). */
const randomHex = (bytes: number): string => process.getBuiltinModule('node:crypto').randomBytes(bytes).toString('hex');

export interface LockOwner {
  pid: number;
  host: string;
  /** Epoch ms when the lock was taken. */
  at: number;
  token: string;
}

export interface HeldLock {
  readonly path: string;
  /** Removes the lock file if it is still this holder's (a holder judged stale may have been replaced). */
  release: () => void;
}

export interface LockOptions {
  /** A lock older than this is stale even if its pid runs (pids are reused); undefined: only a dead pid is stale. */
  staleAfterMs?: number;
  /** Epoch ms now; injectable for tests. */
  now?: () => number;
  /** Blocks this long between attempts of `waitForLock` (default: `Atomics.wait`); injectable for tests. */
  sleep?: (ms: number) => void;
}

/** A lock file whose content cannot be read yet is someone's, for this long after its creation (it is written at once). */
const UNREADABLE_GRACE_MS = 5_000;

function readOwner(path: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner>;
    if (typeof owner.pid === 'number' && typeof owner.at === 'number' && typeof owner.host === 'string')
      return { pid: owner.pid, at: owner.at, host: owner.host, token: String(owner.token) };
  } catch {
    // Being written, or garbage: judged by its age below.
  }
  return undefined;
}

/** True while `pid` runs on this host (another user's live process included); this process always runs. */
export function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // another user's live process
  }
}

function isStale(path: string, owner: LockOwner | undefined, options: LockOptions, now: number): boolean {
  if (!owner) {
    try {
      return now - statSync(path).mtimeMs > UNREADABLE_GRACE_MS;
    } catch {
      return false; // gone: the next attempt creates it
    }
  }
  if (owner.host === hostname() && !isRunning(owner.pid)) return true;
  return options.staleAfterMs !== undefined && now - owner.at > options.staleAfterMs;
}

/** A stale lock moved aside is `LOCK.stale.PID.HEX`, PID the process that moved it. */
const ASIDE_INFIX = '.stale.';
const ASIDE_TAIL = /^(\d+)\.[0-9a-f]+$/;

/**
 * Removes the stale locks that processes killed while breaking one (between the move and the removal) left beside
 * `path`. Each aside names the process that moved it, so one still at work is left alone.
 */
function removeDeadAsides(path: string): void {
  const prefix = `${basename(path)}${ASIDE_INFIX}`;
  removeSiblings(path, (name) => {
    if (!name.startsWith(prefix)) return false;
    const pid = ASIDE_TAIL.exec(name.slice(prefix.length))?.[1];
    return pid !== undefined && !isRunning(Number(pid));
  });
}

/**
 * Moves a stale lock out of the way. The rename is atomic, so of two processes judging the same lock stale only one
 * moves it; if what was moved is not the lock judged stale (someone took over in between), it is put back.
 */
function breakStaleLock(path: string, judged: LockOwner | undefined): void {
  const aside = `${path}${ASIDE_INFIX}${process.pid}.${randomHex(4)}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // someone else moved it first
  }
  const moved = readOwner(aside);
  if (moved?.token !== judged?.token) {
    try {
      linkSync(aside, path); // put the live lock back (fails only if yet another process locked meanwhile)
    } catch {
      // Nothing better to do: the newest holder keeps the lock.
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // Already gone.
  }
}

/** Who holds the lock at `path` now, without taking it: undefined when it is free or its holder is gone. */
export function lockHolder(path: string, options: LockOptions = {}): LockOwner | undefined {
  let owner: LockOwner | undefined;
  try {
    statSync(path);
    owner = readOwner(path);
  } catch {
    return undefined;
  }
  return isStale(path, owner, options, (options.now ?? Date.now)())
    ? undefined
    : (owner ?? { pid: 0, host: '', at: 0, token: '' });
}

/** Takes the lock, or returns who holds it. A stale lock is broken and the lock taken in the same call. */
export function tryLock(path: string, options: LockOptions = {}): HeldLock | { heldBy: LockOwner | undefined } {
  const now = options.now ?? Date.now;
  for (let attempt = 0; attempt < 3; attempt++) {
    const owner: LockOwner = { pid: process.pid, host: hostname(), at: now(), token: randomHex(8) };
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readOwner(path);
      if (!isStale(path, holder, options, now())) return { heldBy: holder };
      breakStaleLock(path, holder);
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(owner));
    } finally {
      closeSync(fd);
    }
    removeDeadAsides(path);
    return {
      path,
      release: () => {
        if (readOwner(path)?.token !== owner.token) return;
        try {
          unlinkSync(path);
        } catch {
          // Already removed.
        }
      },
    };
  }
  return { heldBy: readOwner(path) };
}

const waitCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * Waits for the lock up to `timeoutMs`, or returns who holds it. Synchronous (Atomics.wait): holders keep a lock for
 * the milliseconds of one read-modify-write, and the cache's callers are synchronous.
 */
export function waitForLock(
  path: string,
  timeoutMs: number,
  options: LockOptions = {},
): HeldLock | { heldBy: LockOwner | undefined } {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => void Atomics.wait(waitCell, 0, 0, ms));
  const deadline = now() + timeoutMs;
  for (;;) {
    const result = tryLock(path, options);
    if ('release' in result || now() >= deadline) return result;
    sleep(2 + Math.floor(Math.random() * 10)); // jitter, so waiters do not retry in step
  }
}

/** `process 4242 on this machine`, `process 4242 on build-7`, or `another process` (a lock file not written yet). */
function holderWords(holder: LockOwner | undefined): string {
  if (!holder) return 'another process';
  return `process ${holder.pid} on ${holder.host === hostname() ? 'this machine' : holder.host}`;
}

/**
 * What to do about a lock a running holder keeps (a job, a sandbox), saying only what is true: a holder on this
 * machine is running (one whose process ended is taken over by the next run, never left in the way), so deleting its
 * lock is never advised, except for a process number reused by another program, which only a look at it can tell. A
 * holder on another machine (a shared directory) cannot be checked from here.
 */
export function heldLockHint(holder: LockOwner | undefined, lockPath: string, wait: string): string {
  if (!holder) return 'Try again in a few seconds: the lock was taken a moment ago.';
  if (holder.host !== hostname()) {
    return `${wait}. A lock taken on ${holder.host} cannot be checked from here: only if process ${holder.pid} there is no taskctl, delete ${lockPath}.`;
  }
  return `${wait}: its lock goes with it (a lock whose process has ended is taken over). Only if \`ps -p ${holder.pid} -o args=\` shows no taskctl (its number reused), delete ${lockPath}.`;
}

/**
 * Exit 2, not 8: the service is fine, and a lock held this long (holders keep it for milliseconds) means a hung
 * process or a holder on another machine, which a retry loop would not fix. A lock older than `staleAfterMs` is taken
 * over whoever holds it, so trying again later is always enough: deleting it is never advised.
 */
export function lockTimeoutError(
  what: string,
  path: string,
  holder: LockOwner | undefined,
  wait: { timeoutMs: number; staleAfterMs: number },
): UsageError {
  return new UsageError(
    `the ${what} ${path} is locked by ${holderWords(holder)}, still after ${formatDuration(wait.timeoutMs)}; nothing was changed`,
    `Try again: a lock is taken over once its process has ended, or once it is ${formatDuration(wait.staleAfterMs)} old.`,
  );
}

/**
 * A lock file beside the file it guards (`config.json.lock`), holding its owner's pid, host and start time, and on
 * Linux the boot and pid namespace its pid is numbered in. Node has no flock: the owner is written to a file of its
 * own, then hard-linked to the lock's name, which fails if the name exists, atomically, so a lock file is never seen
 * without its owner (docs/behaviour.md#config-file). A lock whose owner is gone (its pid no longer running where it
 * can be looked at, or its machine booted since), or older than `staleAfterMs`, is taken over. Anything else at a lock's
 * path (a FIFO, a directory, a socket, a device, a symbolic link) is never opened for real, followed or taken over: it
 * is exit 2 naming it (`NotRegularFileError`), from every function here that reads a lock.
 */
import {
  closeSync,
  linkSync,
  lstatSync,
  openSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { systemErrorWords, UsageError } from '../errors.js';
import { formatDuration } from '../lib/duration.js';
import { NotRegularFileError, readRegularFile } from './atomic-file.js';
import { randomHex } from './random-hex.js';
import {
  isRunning,
  ownerFields,
  ownerGone,
  placeOf,
  thisOwner,
  type ProcessOwner,
  whereWords,
} from './process-owner.js';

/** Its process (process-owner.ts; `at`: when the lock was taken) and a token naming this taking of the lock. */
export interface LockOwner extends ProcessOwner {
  token: string;
}

export interface HeldLock {
  readonly path: string;
  /** The token this taking of the lock wrote into it: the lock is told by it, never by a spelling of its path. */
  readonly token: string;
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
  /** More for the lock file to hold beside its owner (a journal's lock: the file's identity). */
  content?: Record<string, unknown>;
}

/**
 * A lock file whose content cannot be read is someone's, for this long after its creation: one being written where
 * hard links are unsupported (created, then written at once), or one of garbage or of an older taskctl.
 */
const UNREADABLE_GRACE_MS = 5_000;

/** A lock is a few hundred bytes: a larger file is none of ours, and is judged by its age as garbage is. */
const LOCK_MAX_BYTES = 64 * 1024;

/**
 * The owner the lock at `path` records, or undefined (none there, being written, garbage, unreadable). Read as every
 * state file is (atomic-file.ts): O_NOFOLLOW and O_NONBLOCK, so a FIFO there can never block the process in open()
 * (where no signal is handled), and anything but a regular file throws `NotRegularFileError` (exit 2).
 */
function readOwner(path: string): LockOwner | undefined {
  let text: string | undefined;
  try {
    text = readRegularFile(path, {
      what: 'lock file',
      maxBytes: LOCK_MAX_BYTES,
      refusedHint: () =>
        'Remove it (taskctl makes its lock there, as a regular file, when it needs one), then try again.',
    });
  } catch (error) {
    if (error instanceof NotRegularFileError) throw error;
    return undefined; // unreadable or too large: judged by its age below
  }
  if (text === undefined) return undefined;
  try {
    const owner = JSON.parse(text) as Partial<LockOwner>;
    if (typeof owner.pid === 'number' && typeof owner.at === 'number' && typeof owner.host === 'string') {
      return { pid: owner.pid, at: owner.at, host: owner.host, token: String(owner.token), ...ownerFields(owner) };
    }
  } catch {
    // Being written, or garbage: judged by its age below.
  }
  return undefined;
}

/** `readOwner`, where something other than a lock file at `path` (a refusal there) means only "not this owner's". */
function readOwnerOrOther(path: string): LockOwner | undefined | 'other' {
  try {
    return readOwner(path);
  } catch (error) {
    if (error instanceof NotRegularFileError) return 'other';
    throw error;
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
  if (ownerGone(owner)) return true;
  return options.staleAfterMs !== undefined && now - owner.at > options.staleAfterMs;
}

/**
 * Files a lock leaves beside itself for a moment, each named after the process that made it: `LOCK.new.PID.HEX`, an
 * owner about to be linked as the lock, and `LOCK.stale.PID.HEX`, a stale lock moved aside to be removed.
 */
const OWNER_INFIX = '.new.';
const ASIDE_INFIX = '.stale.';
const LEFTOVER_TAIL = /^(?:new|stale)\.(\d+)\.[0-9a-f]+$/;

/** A name `LEFTOVER_TAIL` ends, after the name of its lock. */
const LEFTOVER_NAME = /\.(?:new|stale)\.\d+\.[0-9a-f]+$/;

/**
 * The leftover-shaped names of each directory a lock was taken in, read at the first lock taken there by this process:
 * a run taking a lock per job (`jobs --prune` of thousands) reads `jobs/` once, not once per lock. What a process
 * killed later leaves is removed by the next run that takes its lock.
 */
const leftoversIn = new Map<string, Set<string>>();

function leftoverNames(dir: string): Set<string> {
  let names = leftoversIn.get(dir);
  if (names === undefined) {
    names = new Set();
    try {
      for (const name of readdirSync(dir)) if (LEFTOVER_NAME.test(name)) names.add(name);
    } catch {
      // Not readable: nothing known to remove.
    }
    leftoversIn.set(dir, names);
  }
  return names;
}

/**
 * Removes what processes killed while taking a lock (before removing their owner file) or breaking one (between the
 * move and the removal) left beside `path`. Each file names its process, so one still at work is left alone.
 */
function removeDeadLeftovers(path: string): void {
  const prefix = `${basename(path)}.`;
  const names = leftoverNames(dirname(path));
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = LEFTOVER_TAIL.exec(name.slice(prefix.length))?.[1];
    if (pid === undefined || isRunning(Number(pid))) continue;
    names.delete(name);
    try {
      unlinkSync(join(dirname(path), name));
    } catch {
      // Gone already.
    }
  }
}

/** link(2) failing with these: the file system has no hard links (some network, FUSE and FAT-like ones). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Creates the lock holding `owner`: true, or false when it exists. The owner is written to a file of its own first and
 * then linked as the lock, so the lock appears with its owner in it; the owner file is removed either way (one left by
 * a killed process is removed by `removeDeadLeftovers`). `retry`: the owner file vanished before its link.
 */
function createLock(path: string, owner: LockOwner): boolean | 'retry' {
  const text = JSON.stringify(owner);
  const temp = `${path}${OWNER_INFIX}${process.pid}.${randomHex(4)}`;
  let written = false;
  try {
    writeFileSync(temp, text, { flag: 'wx', mode: 0o600 });
    written = true;
    linkSync(temp, path);
    return true;
  } catch (error) {
    if (!written) throw asLockError(error, temp, path); // e.g. a full disk: what the lock itself would have met
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') return false;
    // Removed by a process on another machine sharing the directory (the pid in its name is not running there).
    if (code === 'ENOENT') return 'retry';
    if (!NO_HARD_LINKS.has(code)) throw error;
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // Already gone.
    }
  }
  return createThenWrite(path, text);
}

/** An error met on the owner file, told as the lock's: callers name the lock, and some show Node's message. */
function asLockError(error: unknown, temp: string, path: string): unknown {
  const errno = error as NodeJS.ErrnoException;
  if (errno.path === temp) {
    errno.path = path;
    errno.message = errno.message.replace(temp, path);
  }
  return error;
}

/** Where hard links are unsupported: created with O_EXCL, then written, so a reader may find it empty for a moment. */
function createThenWrite(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, text);
  } catch (error) {
    unlinkSync(path); // ours (O_EXCL): not left empty in the way of the next taker
    throw error;
  } finally {
    closeSync(fd);
  }
  return true;
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
  // Something other than a lock file moved in meanwhile is put back too: the next attempt refuses it, naming it.
  const moved = readOwnerOrOther(aside);
  if (moved === 'other' || moved?.token !== judged?.token) {
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

/**
 * Who holds the lock at `path` now, without taking it: undefined when it is free or its holder is gone. Something
 * other than a lock file there is `NotRegularFileError` (exit 2), as at `tryLock`.
 */
export function lockHolder(path: string, options: LockOptions = {}): LockOwner | undefined {
  try {
    lstatSync(path);
  } catch {
    return undefined;
  }
  const owner = readOwner(path);
  return isStale(path, owner, options, (options.now ?? Date.now)())
    ? undefined
    : (owner ?? { pid: 0, host: '', at: 0, token: '' });
}

/**
 * Takes the lock, or returns who holds it. A stale lock is broken and the lock taken in the same call. Something other
 * than a lock file at `path` throws `NotRegularFileError` (exit 2, naming it): nothing is left beside it.
 */
export function tryLock(path: string, options: LockOptions = {}): HeldLock | { heldBy: LockOwner | undefined } {
  const now = options.now ?? Date.now;
  for (let attempt = 0; attempt < 3; attempt++) {
    const owner: LockOwner = { ...thisOwner(now()), token: randomHex(8) };
    const created = createLock(path, { ...options.content, ...owner });
    if (created === 'retry') continue;
    if (!created) {
      const holder = readOwner(path);
      if (!isStale(path, holder, options, now())) return { heldBy: holder };
      breakStaleLock(path, holder);
      continue;
    }
    removeDeadLeftovers(path);
    return {
      path,
      token: owner.token,
      release: () => {
        // Not a lock file any more (something put in its place): not this holder's to remove.
        const holder = readOwnerOrOther(path);
        if (holder === 'other' || holder?.token !== owner.token) return;
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

/**
 * Takes the lock at `path` for as long as its process runs (a listener's spool, a sandbox's state file), or exit 2 in
 * the caller's words: `cannot` for a lock that cannot be made (given the reason in words), `inUse` for one that a live
 * process holds.
 */
export function holdLock(
  path: string,
  refusals: {
    cannot: (reason: string, error: unknown) => UsageError;
    inUse: (holder: LockOwner | undefined) => UsageError;
  },
): HeldLock {
  let lock;
  try {
    lock = tryLock(path);
  } catch (error) {
    if (error instanceof NotRegularFileError) throw error; // names the lock, and what to do: in no caller's words
    throw refusals.cannot(systemErrorWords(error), error);
  }
  if ('release' in lock) return lock;
  throw refusals.inUse(lock.heldBy);
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

/**
 * `process 4242 on this machine`, `process 4242 on build-7`, `process 4242 in another container of this machine`, or
 * `another process` (a lock file not written yet, where hard links are unsupported, or not readable).
 */
export function holderWords(holder: LockOwner | undefined): string {
  if (!holder) return 'another process';
  return `process ${holder.pid} ${whereWords(holder)}`;
}

/**
 * What to do about a lock a running holder keeps (a job, a sandbox), saying only what is true: a holder whose pid can
 * be looked at is running (one whose process ended is taken over by the next run, never left in the way), so deleting
 * its lock is never advised, except for a process number reused by another program, which only a look at it can
 * tell. A holder on another machine, or in another container (pid namespace), cannot be checked from here: one rule.
 */
export function heldLockHint(holder: LockOwner | undefined, lockPath: string, wait: string): string {
  if (!holder) return 'Try again in a few seconds: the lock was taken a moment ago.';
  const place = placeOf(holder);
  if (place !== 'here' && place !== 'rebooted') {
    return `${wait}. A lock taken ${whereWords(holder, place)} cannot be checked from here: only if process ${holder.pid} there is no taskctl, delete ${lockPath}.`;
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

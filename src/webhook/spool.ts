/**
 * `webhook listen --spool FILE`: acknowledged events made durable. Each is appended as one JSON line once it is handed
 * on (forwarded, printed) and fdatasynced before the 200 (appends in one turn of the event loop share one sync): a
 * line is a seen mark, so none is written for an event not handed on. Its command's completion is appended
 * after it ran. At the next start, events whose command never finished are run again, and the keys seen within the
 * duplicate window are remembered, so even `kill -9` loses nothing acknowledged. The file is rewritten compactly at
 * start, on a clean stop, and when it passes 64 MiB.
 *
 * One listener per spool: `FILE.lock` beside it is held from the open to the close (a second listener would run the
 * first one's events again and rename its rewrite over the file the first keeps appending to, losing what it
 * acknowledges after). A lock whose process has ended is taken over. A spool with a second name (a hard link) is
 * refused, as its lock is beside each name; a symbolic link to one in use names its holder before its refusal.
 *
 * A rewrite puts a new file at the spool's name: a name the old file keeps (a hard link given, or a `mv`, while the
 * listener ran) would hold a copy of its events, with a lock of its own. So each file starts with the spool's token,
 * and before the replace the old file gets a last line naming the spool's path and that token. A listener given a file
 * with such a line is refused only where its events went on: the path names another file that starts with the token.
 * A listener killed between that line and the replace leaves it in the live spool, naming itself, or nothing once the
 * stopped spool was moved: read as the spool, never refused with a hint to remove the only copy, but with a warning
 * naming the path (a copy of a spool moved or removed since looks the same). A copy (cp) carries no mark: it is read
 * as a spool, its events run again (at least once, never lost).
 *
 * While the listener runs, each write first compares the open file with the path (fstat against lstat): a spool moved
 * away or removed is written again at its path with all it holds, the old file marked as replaced; another file put
 * there is never written over (the line is refused, so its event is not acknowledged); a file taken over by a
 * listener on the name it was moved to is left to that listener.
 *
 * Lines: `{"e":id,"k":key,"at":ms,"l":label,"n":name,"t":taskId,"r":raw,"m":1}` (an event for --exec; `m` when
 * simulated),
 * `{"s":key,"at":ms}` (an event handled without a command), `{"d":id}` (its command finished), `{"spool":token,"at":path}` (the
 * first line: the spool's token, random, kept by every rewrite, and the absolute path it was written at), `{"to":path,"spool":token}` (this file was replaced:
 * the spool went on at `path`, absolute, in a file starting with `token`).
 */
import { closeSync, constants, lstatSync, openSync, readlinkSync, readSync, realpathSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { FileHandle } from 'node:fs/promises';
import { readRegularFile, writeFileAtomicSync } from '../store/atomic-file.js';
import { isJournalText } from '../store/journal-head.js';
import { randomHex } from '../store/random-hex.js';
import { describeDirectoryProblem, makeDirectory } from '../store/make-dir.js';
import { writeAdvice } from '../store/write-advice.js';
import { heldLockHint, holderWords, holdLock, lockHolder, type HeldLock } from '../store/lock-file.js';
import { shellWord } from '../lib/shell-word.js';
import { systemErrorWords, UsageError } from '../errors.js';
import type { ExecJob } from './exec-queue.js';

const MAX_SPOOL_BYTES = 512 * 1024 * 1024;

/** Test seam: the size past which the spool is rewritten compactly while its listener runs (64 MiB). */
export const spoolLimits = { compactAtBytes: 64 * 1024 * 1024 };

export interface SpooledEvent extends ExecJob {
  spoolId: number;
  key: string;
  at: number;
}

export interface OpenedSpool {
  spool: Spool;
  /** Acknowledged events whose command had not finished, oldest first. */
  pending: SpooledEvent[];
  /** Keys handled within the window, with when. */
  seen: Array<[string, number]>;
}

interface Line {
  e?: number;
  k?: string;
  /** When an event was seen (ms); in the first line, the path the spool was written at. */
  at?: number | string;
  l?: string;
  n?: string | undefined;
  t?: string | undefined;
  r?: string;
  m?: 1;
  s?: string;
  d?: number;
  to?: string;
  spool?: string;
}

/** The line of an event for --exec. */
function jobLine(p: SpooledEvent): Line {
  const line: Line = { e: p.spoolId, k: p.key, at: p.at, l: p.label, n: p.name, t: p.taskId, r: p.raw };
  if (p.simulated === true) line.m = 1;
  return line;
}

export class Spool {
  private handle: FileHandle | undefined;
  private chain: Promise<void> = Promise.resolve();
  private batch: string[] | undefined;
  private written = 0;
  private readonly pending = new Map<number, SpooledEvent>();
  /** The file, as given (`--spool`): named when a write to it fails. */
  get path(): string {
    return this.file;
  }
  /** Only while opening: the keys read from the file. Afterwards the listener's duplicate filter is the one list. */
  private seen = new Map<string, number>();
  private keys: () => Array<[string, number]> = () => [...this.seen];
  /** `FILE.lock`, held from the open to the close. */
  private lock: HeldLock | undefined;
  /** Only while opening: the `to` lines read (where a replaced copy's spool went on, and the spool's token). */
  private readonly replacedBy: Array<{ to: string; token: string }> = [];
  /**
   * The spool's token, from its file's first line (`{"spool":token}`), or drawn at its first rewrite: each rewrite's
   * file starts with it, and the mark left in the file it replaces names it.
   */
  private token: string | undefined;
  /** Only while opening: the path its first line says the file was written at (none before it said one). */
  private writtenAt: string | undefined;

  private constructor(
    private readonly file: string,
    private nextId: number,
    private readonly horizon: () => number,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * Reads what a previous run left, rewrites it compactly, and opens it for appending. `keys` gives the duplicate
   * filter's keys for later rewrites (so the spool keeps no second copy of them).
   */
  static async open(
    file: string,
    horizon: () => number,
    keys: () => Array<[string, number]>,
    log: (line: string) => void = () => undefined,
  ): Promise<OpenedSpool> {
    // Its directory made by the guarded walk, which cannot spin (docs/behaviour.md#files).
    const problem = makeDirectory(dirname(file));
    if (problem)
      throw new UsageError(
        `cannot make the directory of the spool file ${file}: ${describeDirectoryProblem(problem)}`,
        spoolAdvice(problem),
      );
    const lock = lockSpool(file);
    try {
      return await Spool.openLocked(file, lock, horizon, keys, log);
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  private static async openLocked(
    file: string,
    lock: HeldLock,
    horizon: () => number,
    keys: () => Array<[string, number]>,
    log: (line: string) => void,
  ): Promise<OpenedSpool> {
    const spool = new Spool(file, 1, horizon, log);
    // Open before anything is read: a name given to the file from now on keeps the mark of the rewrite below.
    spool.handle = await openToMark(file);
    try {
      const goodBytes = spool.read(file);
      // A torn last line (never acknowledged) is cut, so the mark starts a line of its own.
      if (goodBytes !== undefined) await spool.handle?.truncate(goodBytes);
      const horizonAt = horizon();
      const seen = [...spool.seen].filter(([, at]) => at >= horizonAt);
      await spool.rewrite();
      spool.lock = lock;
      spool.seen = new Map();
      spool.keys = keys;
      return { spool, pending: [...spool.pending.values()], seen };
    } catch (error) {
      await spool.handle?.close();
      throw error;
    }
  }

  /**
   * What a previous run left (its pending commands and seen keys), or exit 2 for a file that is no spool to go on with.
   * The bytes before a torn last line, when there is one.
   */
  private read(file: string): number | undefined {
    refuseOtherNames(file);
    const text = readRegularFile(file, { what: 'spool file', maxBytes: MAX_SPOOL_BYTES }) ?? '';
    // A job's journal (its first line the job record) given by mistake: the rewrite below would replace it.
    if (isJournalText(text))
      throw new UsageError(
        `the spool file ${file} is a taskctl journal (it starts with a job record)`,
        'Pass another --spool FILE than a job journal.',
      );
    const lines = text.split('\n');
    let goodBytes: number | undefined;
    lines.forEach((lineText, index) => {
      if (lineText.trim() === '') return;
      let line: Line;
      try {
        line = JSON.parse(lineText) as Line;
      } catch {
        // A torn last line was never acknowledged (the 200 waits for the sync); anything else is damage.
        if (index >= lines.length - 2) {
          goodBytes = Buffer.byteLength(text) - Buffer.byteLength(lines.slice(index).join('\n'));
          return;
        }
        throw new UsageError(`the spool file ${file} is damaged at line ${index + 1}`, 'Move it away to start afresh.');
      }
      this.apply(line);
    });
    const warning = refuseReplacedCopy(file, this.replacedBy) ?? this.copyWarning(file);
    if (warning !== undefined) this.log(warning);
    return goodBytes;
  }

  /**
   * A file written at another path that still holds a file starting with this spool's token: a copy (cp), read as a
   * spool (it cannot be told from the spool itself with a stale copy put back at its path), and said.
   */
  private copyWarning(file: string): string | undefined {
    const at = this.writtenAt;
    if (at === undefined || this.token === undefined || resolve(file) === at || sameFile(at, file)) return undefined;
    if (!startsWithToken(at, this.token)) return undefined; // moved, or another spool there now
    return `warning: the spool file ${file} is a copy of the spool ${at} (it starts with the same token): read as a spool, so its events may run a second time; if ${at} is that spool, stop, remove ${file} and pass --spool ${at}`;
  }

  /** An event that will run a command; resolves with its spool id once on disk. */
  async addJob(job: ExecJob, key: string, at: number): Promise<number> {
    const spoolId = this.nextId++;
    this.pending.set(spoolId, { ...job, spoolId, key, at });
    const line = jobLine({ ...job, spoolId, key, at });
    try {
      await this.append(JSON.stringify(line));
    } catch (error) {
      // Not on disk, not acknowledged: the redelivery brings it again, so it is not pending here either.
      this.pending.delete(spoolId);
      throw error;
    }
    return spoolId;
  }

  /** An event handled without a command: only its key, for the duplicate filter after a restart. */
  async addSeen(key: string, at: number): Promise<void> {
    await this.append(JSON.stringify({ s: key, at }));
  }

  /** The command of `spoolId` finished: not run again at the next start. */
  done(spoolId: number): void {
    if (!this.pending.delete(spoolId)) return;
    void this.append(JSON.stringify({ d: spoolId })).catch(() => undefined);
  }

  /** Rewrites the file compactly and closes it (the jobs still pending stay in it). */
  async close(): Promise<void> {
    await this.chain.catch(() => undefined);
    try {
      const place = await this.place();
      if (place === 'here') await this.rewrite();
      else if (place === 'again') await this.writeAgain();
      else if (place === 'other' && this.pending.size > 0) throw this.owedElsewhere();
      // Taken over by a listener on the name it was moved to: its events went on there.
    } finally {
      await this.handle?.close();
      this.handle = undefined;
      this.lock?.release();
      this.lock = undefined;
    }
  }

  private apply(line: Line): void {
    if (typeof line.e === 'number' && typeof line.k === 'string' && typeof line.r === 'string') {
      const at = typeof line.at === 'number' ? line.at : 0;
      this.pending.set(line.e, {
        spoolId: line.e,
        key: line.k,
        at,
        label: line.l ?? line.k,
        name: line.n,
        taskId: line.t,
        raw: line.r,
        ...(line.m === 1 ? { simulated: true } : {}),
      });
      this.seen.set(line.k, at);
      this.nextId = Math.max(this.nextId, line.e + 1);
    } else if (typeof line.s === 'string') {
      this.seen.set(line.s, typeof line.at === 'number' ? line.at : 0);
    } else if (typeof line.d === 'number') {
      this.pending.delete(line.d);
    } else if (typeof line.to === 'string') {
      // A mark with no token proves nothing: never a refusal.
      if (typeof line.spool === 'string') this.replacedBy.push({ to: line.to, token: line.spool });
    } else if (typeof line.spool === 'string') {
      if (this.token === undefined && typeof line.at === 'string') this.writtenAt = line.at;
      this.token ??= line.spool;
    }
  }

  private async rewrite(): Promise<void> {
    const horizon = this.horizon();
    const pendingKeys = new Set([...this.pending.values()].map((p) => p.key));
    const lines: string[] = [];
    for (const [key, at] of this.keys()) {
      if (at >= horizon && !pendingKeys.has(key)) lines.push(JSON.stringify({ s: key, at }));
    }
    for (const p of this.pending.values()) {
      lines.push(JSON.stringify(jobLine(p)));
    }
    this.token ??= randomHex(8);
    const head = JSON.stringify({ spool: this.token, at: resolve(this.file) });
    const text = [head, ...lines].map((l) => `${l}\n`).join('');
    try {
      if (this.handle) {
        // The file about to be replaced says where the spool went on: on disk before the replace, so no kill in
        // between leaves another name of it unmarked. Its token is the first line of the file put there: a mark
        // whose replace never happened (a kill in between) names no file that starts with it, or only this one.
        await this.handle.write(`${JSON.stringify({ to: resolve(this.file), spool: this.token })}\n`);
        await this.handle.datasync();
        await this.handle.close();
      }
      writeFileAtomicSync(this.file, text);
      // Read too: the mark of a listener that took the file over (moved while this one ran) is looked for past its lines.
      this.handle = await open(this.file, 'a+', 0o600);
    } catch (error) {
      throw new UsageError(`cannot write the spool file ${this.file}: ${systemErrorWords(error)}`, spoolAdvice(error));
    }
    this.written = Buffer.byteLength(text);
  }

  /**
   * Before a line is written: the file open is still the one at the spool's path. One moved away (mv) or removed (rm)
   * while the listener runs would keep the events acknowledged from now on where the user does not look, or nowhere
   * once removed: the spool is written again at its path with all it holds (the old file gets the mark of a replace,
   * so a listener started on the name it was moved to is refused). Another file put at the path is never written
   * over, and a file taken over by a listener on its new name is left to it: the line is refused (its event not
   * acknowledged, so the service delivers it again).
   */
  private async keepAtPath(): Promise<void> {
    const place = await this.place();
    if (place === 'here') return;
    if (place === 'again') return this.writeAgain();
    if (place === 'other') throw this.replacedError();
    throw new SpoolMovedError(
      `the spool file ${this.file} was moved to ${place.takenAt} while listening, and another listener took it over there`,
      `Stop this listener: its events went on with that one (--spool ${shellWord(place.takenAt)}).`,
    );
  }

  /**
   * Where the open file stands against the spool's path: `here` (the same file), `again` (nothing there, or a copy of
   * this spool: it starts with its token; written again there), `other` (another file: never written over), or taken
   * over by a listener on the name it was moved to (the mark of that listener's replace, appended past what this one
   * wrote, names it).
   */
  private async place(): Promise<'here' | 'again' | 'other' | { takenAt: string }> {
    const handle = this.handle;
    if (!handle) return 'here';
    const mine = await handle.stat({ bigint: true });
    let there: { ino: bigint; dev: bigint } | undefined;
    try {
      there = lstatSync(this.file, { bigint: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    if (there?.ino === mine.ino && there.dev === mine.dev) return 'here';
    const takenAt = await this.takenAt(handle, Number(mine.size));
    if (takenAt !== undefined) return { takenAt };
    if (there === undefined || (this.token !== undefined && startsWithToken(this.file, this.token))) return 'again';
    return 'other';
  }

  /** The path a listener that took this file over wrote in its mark, past the bytes this one wrote; if any. */
  private async takenAt(handle: FileHandle, size: number): Promise<string | undefined> {
    if (size <= this.written || this.token === undefined) return undefined;
    const length = Math.min(size - this.written, 64 * 1024);
    const tail = Buffer.alloc(length);
    const { bytesRead } = await handle.read(tail, 0, length, this.written);
    const own = resolve(this.file);
    let at: string | undefined;
    for (const text of tail.subarray(0, bytesRead).toString('utf8').split('\n')) {
      try {
        const line = JSON.parse(text) as Line;
        if (typeof line.to === 'string' && line.spool === this.token && line.to !== own) at = line.to;
      } catch {
        // not a mark
      }
    }
    return at;
  }

  /** The spool written again at its path (after a mv or rm while listening), said once per time. */
  private async writeAgain(): Promise<void> {
    makeDirectory(dirname(this.file)); // removed with its directory: the rewrite says so if it cannot be made
    await this.rewrite();
    this.log(
      `warning: the spool file ${this.file} was moved away or removed while listening: written again there with the ` +
        `${this.pending.size} event(s) it owes; a file it was moved to is an earlier copy now (remove it)`,
    );
  }

  private replacedError(): SpoolMovedError {
    return new SpoolMovedError(
      `the spool file ${this.file} was replaced by another file while listening; that file is left as it is`,
      `Move ${shellWord(this.file)} away: the listener then writes its spool there again (or stop it and pass another --spool).`,
    );
  }

  /** At the stop, another file at the spool's path: where the events still owed are, the file this listener kept. */
  private owedElsewhere(): SpoolMovedError {
    const { message } = this.replacedError();
    const count = this.pending.size;
    const where = this.handle ? nameOfOpenFile(this.handle.fd) : undefined;
    if (where !== undefined)
      return new SpoolMovedError(
        `${message}; ${count} event(s) whose command did not finish are in ${where}`,
        `Pass --spool ${shellWord(where)} to run them.`,
      );
    const labels = [...this.pending.values()].slice(0, 5).map((p) => p.label);
    return new SpoolMovedError(
      `${message}; ${count} event(s) whose command did not finish were kept in a file removed since: ${labels.join(', ')}${count > labels.length ? ', …' : ''}`,
      'Run their commands by hand, or have the service deliver them again.',
    );
  }

  /** Appends one line; resolves when it (and the lines batched with it) is fdatasynced. */
  private append(line: string): Promise<void> {
    if (this.batch === undefined) {
      const batch: string[] = [];
      this.batch = batch;
      this.chain = this.chain
        .catch(() => undefined)
        .then(async () => {
          this.batch = undefined;
          if (!this.handle) throw new Error('the spool file is closed');
          await this.keepAtPath();
          const handle = this.handle;
          const text = batch.join('');
          await handle.write(text);
          await handle.datasync();
          this.written += Buffer.byteLength(text);
          if (this.written > spoolLimits.compactAtBytes) await this.rewrite();
        });
    }
    this.batch.push(`${line}\n`);
    return this.chain;
  }
}

/** The spool's file is not at its path any more (moved, removed, replaced while its listener ran): exit 2, in words. */
export class SpoolMovedError extends UsageError {}

/** The path an open file has now (Linux's /proc), or undefined: unknown, or removed. */
function nameOfOpenFile(fd: number): string | undefined {
  try {
    const name = readlinkSync(`/proc/self/fd/${fd}`);
    return name.startsWith('/') && !name.endsWith(' (deleted)') ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The spool file, open to append the mark of its replace to; undefined when there is none yet, or it is no regular file
 * (the read refuses it, in its words). Never follows a symbolic link, never waits on a FIFO.
 */
async function openToMark(file: string): Promise<FileHandle | undefined> {
  try {
    if (!lstatSync(file).isFile()) return undefined;
    return await open(file, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
}

/**
 * A file some listener replaced (its `to` lines name where the spool went on) is a copy of events that listener
 * kept: run here they would run twice. Exit 2 naming the spool, but only when the file named is another file that
 * starts with the spool's token, as the file the replace put there did: the events went on there. A mark naming this
 * very file proves nothing (a listener killed between its mark and its replace). A mark naming a path where no such
 * file is cannot tell a copy of a spool moved or removed since from the spool itself, killed between its mark and
 * its replace, then moved: this file is read as the spool (refused, it would be removed by the hint with the only
 * copy of its events), and the warning returned names that path.
 */
function refuseReplacedCopy(
  file: string,
  replacedBy: ReadonlyArray<{ to: string; token: string }>,
): string | undefined {
  const elsewhere = replacedBy.filter(({ to }) => !sameFile(to, file));
  const spool = [...elsewhere].reverse().find(({ to, token }) => startsWithToken(to, token))?.to;
  if (spool === undefined) {
    // Its events went on at a path that holds them no more: a copy of a spool moved or removed since, or the spool
    // itself (its listener killed between the mark and the replace, then moved). Not told apart: read, and said.
    const gone = elsewhere.at(-1)?.to;
    return gone === undefined
      ? undefined
      : `warning: the spool file ${file} was replaced by its listener at ${gone}, which no longer holds that spool (moved or removed since): read as the spool, so its events may run a second time; if ${gone} was moved, stop and pass its new name to --spool, then remove ${file}`;
  }
  throw new UsageError(
    `the spool file ${file} is an earlier copy of the spool ${spool}, which its listener replaced while ${file} named it too; nothing was read or run`,
    `Its events went on in ${spool}: pass --spool ${shellWord(spool)}, and remove ${shellWord(file)}.`,
  );
}

/**
 * Whether `path` is a regular file (not followed if a symbolic link, never a FIFO waited on) whose first line is
 * `{"spool":token,"at":path}` (`{"spool":token}` before it said its path), as every rewrite of that spool writes it.
 */
function startsWithToken(path: string, token: string): boolean {
  let fd: number | undefined;
  try {
    if (!lstatSync(path).isFile()) return false;
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    // The token, and the path it was written at (at most PATH_MAX bytes, escaped).
    const head = Buffer.alloc(16 * 1024);
    const read = readSync(fd, head, 0, head.length, 0);
    const text = head.subarray(0, read).toString('utf8');
    const end = text.indexOf('\n');
    if (end < 0) return false;
    const first = JSON.parse(text.slice(0, end)) as Line;
    return first.spool === token && first.to === undefined;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Whether two paths name the same file (neither followed if a symbolic link). */
function sameFile(a: string, b: string): boolean {
  try {
    const one = lstatSync(a, { bigint: true });
    const two = lstatSync(b, { bigint: true });
    return one.ino === two.ino && one.dev === two.dev;
  } catch {
    return false;
  }
}

/**
 * Takes `FILE.lock` for a listener's whole life, or exit 2 naming the listener that holds it (before anything is read,
 * rewritten or bound). A symbolic link is refused later (the spool is never followed): one to a spool in use is
 * refused here, naming that spool's holder.
 */
function lockSpool(file: string): HeldLock {
  const inUse = (holder: Parameters<typeof holderWords>[0], lockPath: string): UsageError =>
    new UsageError(
      `the spool file ${file} is in use by another listener (${holderWords(holder)}); nothing was read or run`,
      heldLockHint(holder, lockPath, 'Stop that listener first, or pass another --spool file'),
    );
  try {
    if (lstatSync(file).isSymbolicLink()) {
      const target = `${realpathSync(file)}.lock`;
      const holder = lockHolder(target);
      if (holder !== undefined) throw inUse(holder, target);
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // Missing, or a dangling link: the read below says what it is.
  }
  const lockPath = `${file}.lock`;
  return holdLock(lockPath, {
    cannot: (reason, error) =>
      new UsageError(`cannot lock the spool file ${file} (${lockPath}): ${reason}`, spoolAdvice(error)),
    inUse: (holder) => inUse(holder, lockPath),
  });
}

/**
 * A spool with another name (a hard link) has a lock beside each name: a listener through the other name would not
 * meet this one's. Refused, as a journal with one is.
 */
function refuseOtherNames(file: string): void {
  let names: number;
  try {
    const stats = lstatSync(file);
    if (!stats.isFile()) return; // refused by the read, in its words
    names = stats.nlink;
  } catch {
    return; // none yet
  }
  if (names <= 1) return;
  // Removing this name is safe whoever runs on the other; a copy (cp) would be a second spool of the same events.
  throw new UsageError(
    `the spool file ${file} has ${names} names (hard links): a listener locks its spool by its name, so one through another name could run the same events again; nothing was read or run`,
    `Keep one name: remove ${shellWord(file)} and pass the other (find -samefile lists a file's names); a copy would run the same events again.`,
  );
}

/** The next step when the spool cannot be written, by the cause (store/write-advice.ts). */
function spoolAdvice(cause: unknown): string {
  return writeAdvice(cause, 'pass a --spool file in another directory', 'Pass a --spool file in a writable directory.');
}

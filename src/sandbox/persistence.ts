/**
 * The `--state FILE`: what the sandbox acknowledged survives `kill -9`, ids are never handed out twice, and one sandbox
 * owns the file at a time.
 * - `FILE` holds the whole account (JSON), replaced atomically at start and on close (compaction), and in the
 *   background once the journal outgrows it (`FILE.journal` then continues as `FILE.journal.next` while the account is
 *   written in slices, so a sandbox with 200,000 tasks keeps answering within milliseconds).
 * - `FILE.journal` gets one JSON line per group of changes in between (the new tasks and the current scalars), fsynced
 *   before any reply is sent (`settle`): a task answered 201 is on disk. Concurrent changes share one fsync.
 * - `FILE.lock` (pid) keeps a second sandbox off the file; a lock left by a killed sandbox is taken over.
 * Loading replays the journal over the file; a torn last line (killed mid-append) was never acknowledged and is dropped.
 */
import { constants, statSync, unlinkSync } from 'node:fs';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import * as z from '../lib/zod.js';
import { errorWords, UsageError } from '../errors.js';
import { readRegularFile, removeLeftoverTemps, writeFileAtomicSync } from '../store/atomic-file.js';
import { heldLockHint, holderWords, holdLock, type HeldLock } from '../store/lock-file.js';
import type { AccountSnapshot, SandboxState } from './state.js';
import type { StoredTask } from './timeline.js';

const STATE_VERSION = 1;
/** Node's largest string; a state file is read whole. */
const MAX_STATE_BYTES = 512 * 1024 * 1024;

const TaskSchema = z.object({
  id: z.number().int().nonnegative(),
  service: z.string(),
  items: z.array(z.string()),
  cost: z.number().nonnegative(),
  createdAt: z.number(),
  startAt: z.number(),
  itemMs: z.number().nonnegative(),
});

const AccountSchema = z.object({
  balance: z.number().int(),
  apiKey: z.string().min(1),
  keyRotations: z.number().int().nonnegative(),
  nextId: z.number().int().positive(),
  webhookUrl: z.string().nullable(),
  tasks: z.array(TaskSchema),
});
/** The state file's scalars; its tasks are checked one by one (`checkTasks`), keeping the parsed objects. */
const ScalarsSchema = AccountSchema.omit({ tasks: true }).extend({ tasks: z.array(z.unknown()) });
const StateFileSchema = ScalarsSchema.extend({ version: z.literal(STATE_VERSION) });

/**
 * Checks each task against TaskSchema and keeps the object JSON.parse made: parsing the whole array with zod would
 * copy every task at once (with 200,000 tasks, tens of MB more at the peak of loading).
 */
function checkTasks(tasks: readonly unknown[]): StoredTask[] | undefined {
  for (const task of tasks) if (!TaskSchema.safeParse(task).success) return undefined;
  return tasks as StoredTask[];
}

const FIX_STATE_HINT = 'Fix or remove the file given to --state.';

/** What went wrong with the state files, in words: ours as they are, a system error's code in words, never its text. */
function problemWords(error: unknown): string {
  return error instanceof ShortWriteError ? error.message : errorWords(error);
}

/** A write that wrote fewer bytes than it was given (a full disk that did not say so). */
class ShortWriteError extends Error {}

function parseJson(text: string, problem: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(problem, FIX_STATE_HINT);
  }
}

function readSnapshot(file: string): AccountSnapshot | undefined {
  const text = readRegularFile(file, { what: 'state file', maxBytes: MAX_STATE_BYTES });
  if (text === undefined) return undefined;
  const json = parseJson(text, `state file ${file} is not valid JSON; move it away to start fresh`);
  const parsed = StateFileSchema.safeParse(json);
  if (!parsed.success) {
    // The field named, not the schema library's text.
    const field = parsed.error.issues[0]?.path.join('.') ?? '';
    throw new UsageError(
      `state file ${file} is not a state file of \`taskctl sandbox\` (${field === '' ? 'not an object' : `its "${field}" is missing or not what it should be`})`,
      FIX_STATE_HINT,
    );
  }
  const { balance, apiKey, keyRotations, nextId, webhookUrl } = parsed.data;
  const tasks = checkTasks(parsed.data.tasks);
  if (!tasks)
    throw new UsageError(
      `state file ${file} is not a state file of \`taskctl sandbox\` (a task record is invalid)`,
      FIX_STATE_HINT,
    );
  return { balance, apiKey, keyRotations, nextId, webhookUrl, tasks };
}

/** Applies the journal's lines in order. Replaying a line twice changes nothing (tasks are keyed by id, the rest is absolute). */
function replayJournal(journal: string, base: AccountSnapshot, journalPath: string): AccountSnapshot {
  const lines = journal.split('\n');
  const known = new Set(base.tasks.map((task) => task.id));
  const account = { ...base, tasks: [...base.tasks] };
  lines.forEach((line, index) => {
    if (line === '') return;
    const isLast = index === lines.length - 1 || (index === lines.length - 2 && lines[index + 1] === '');
    const parsed = AccountSchema.safeParse(parseJsonOrUndefined(line));
    if (!parsed.success) {
      if (isLast) return; // torn by a kill mid-append: never acknowledged
      throw new UsageError(
        `state journal ${journalPath} is corrupt at line ${index + 1}; move it away to start from the state file`,
        FIX_STATE_HINT,
      );
    }
    const { tasks, ...scalars } = parsed.data;
    Object.assign(account, scalars);
    for (const task of tasks) {
      if (known.has(task.id)) continue;
      known.add(task.id);
      account.tasks.push(task);
    }
  });
  account.tasks.sort((a, b) => a.id - b.id);
  const last = account.tasks.at(-1);
  if (last && account.nextId <= last.id) account.nextId = last.id + 1;
  return account;
}

/** Bytes of `path`, or -1 when it does not exist. */
function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Not there.
  }
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The saved account (the file, then the journals replayed over it), or undefined when there is none yet. */
export function loadStateFile(file: string, fresh: AccountSnapshot): AccountSnapshot | undefined {
  let account = readSnapshot(file);
  // `.journal.next` exists only when a background compaction was cut short; its lines came after `.journal`'s.
  for (const path of [`${file}.journal`, `${file}.journal.next`]) {
    const journal = readRegularFile(path, { what: 'state journal', maxBytes: MAX_STATE_BYTES });
    if (journal === undefined || journal === '') continue;
    account = replayJournal(journal, account ?? fresh, path);
  }
  return account;
}

/** Tasks written per slice of a background compaction (a few ms of work between turns of the event loop). */
const COMPACT_SLICE = 2000;
/** The journal is folded into the file once it is larger than this and than the file. */
const COMPACT_MIN_JOURNAL_BYTES = 16 * 1024 * 1024;

interface Round {
  done: Promise<boolean>;
  resolve: (saved: boolean) => void;
}

function newRound(): Round {
  let resolve: (saved: boolean) => void = () => {};
  const done = new Promise<boolean>((r) => {
    resolve = r;
  });
  return { done, resolve };
}

export class StateStore {
  private journal: FileHandle | undefined;
  private journalSize = 0;
  /** Bytes of the state file as last written: the journal is compacted once it outgrows it. */
  private fileSize = 0;
  private compacting: Promise<void> | undefined;
  /** Test hook: journal size that triggers a background compaction. */
  compactAfterBytes = COMPACT_MIN_JOURNAL_BYTES;
  private state: SandboxState | undefined;
  /** Tasks (a prefix of state.tasks, which only grows) already in the journal or the file. */
  private savedTasks = 0;
  private dirty = false;
  /** The last save failed: its changes are in memory only until a save succeeds. */
  private failing = false;
  private running: Promise<void> | undefined;
  private inFlight: Round | undefined;
  private nextRound: Round | undefined;

  private constructor(
    readonly file: string,
    private readonly lock: HeldLock,
    private readonly log: (line: string) => void,
    /** The file alone holds the account (no journal to fold in): start-up need not rewrite it. */
    private readonly compactAtStart: boolean,
  ) {}

  /**
   * Locks `file` (exit 2 when another live sandbox holds it), removes temp files a killed sandbox left, and loads the
   * account (undefined: start from `fresh`).
   */
  static open(
    file: string,
    fresh: AccountSnapshot,
    log: (line: string) => void,
  ): { store: StateStore; saved: AccountSnapshot | undefined } {
    const lockPath = `${file}.lock`;
    const lock = holdLock(lockPath, {
      cannot: (reason) =>
        new UsageError(
          `cannot lock the state file (${lockPath}): ${reason}`,
          'Give --state a file in a directory that exists and that you can write to.',
        ),
      inUse: (holder) =>
        new UsageError(
          `the state file ${file} is in use by another sandbox (${holderWords(holder)})`,
          heldLockHint(holder, lockPath, 'Stop that sandbox, or pass another --state file'),
        ),
    });
    try {
      removeLeftoverTemps(file);
      const journaled = [`${file}.journal`, `${file}.journal.next`].some((path) => sizeOf(path) > 0);
      const compactAtStart = journaled || sizeOf(file) <= 0;
      const saved = loadStateFile(file, fresh);
      unlinkQuietly(`${file}.compact`); // a background compaction cut short: its temp file
      return { store: new StateStore(file, lock, log, compactAtStart), saved };
    } catch (error) {
      lock.release();
      if (error instanceof UsageError) throw error;
      throw new UsageError(`cannot load the state file ${file}: ${problemWords(error)}`, FIX_STATE_HINT);
    }
  }

  /** Compacts: writes the whole account to the file, then starts an empty journal; from now on changes are journaled. */
  async attach(state: SandboxState): Promise<void> {
    this.state = state;
    try {
      if (this.compactAtStart) this.compact();
      else {
        this.fileSize = sizeOf(this.file);
        this.savedTasks = state.tasks.length;
      }
      // The file now holds what a journal left by a cut-short compaction held; replayed later, it would undo changes.
      await unlink(`${this.file}.journal.next`).catch(() => {});
      this.journal = await open(
        `${this.file}.journal`,
        constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_APPEND | constants.O_NOFOLLOW,
        0o600,
      );
      await this.journal.sync();
    } catch (error) {
      throw new UsageError(
        `cannot write the state file ${this.file}: ${problemWords(error)}`,
        'Pass a --state file in a writable directory.',
      );
    }
    this.journalSize = 0;
    state.onChange = () => {
      this.changed();
    };
  }

  /** Releases the file without saving (start-up failed after open). */
  abandon(): void {
    void this.journal?.close();
    this.journal = undefined;
    this.lock.release();
  }

  private compact(): void {
    if (!this.state) return;
    const text = `${JSON.stringify({ version: STATE_VERSION, ...this.state.toSnapshot() })}\n`;
    writeFileAtomicSync(this.file, text, 0o600);
    this.fileSize = Buffer.byteLength(text);
    this.savedTasks = this.state.tasks.length;
  }

  /**
   * Folds the journal into the file without stopping the server. Called between journal rounds: the journal continues
   * in `FILE.journal.next` from now on, the account as it is now (tasks only grow; their records never change) is
   * written in slices to a temp file that replaces `FILE`, and then the old journal goes and the new one takes its name.
   * A kill at any point leaves files that `loadStateFile` reads back to the same account.
   */
  private async startCompaction(): Promise<void> {
    const state = this.state;
    if (!state || !this.journal) return;
    const nextPath = `${this.file}.journal.next`;
    const next = await open(
      nextPath,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_APPEND | constants.O_NOFOLLOW,
      0o600,
    );
    const old = this.journal;
    this.journal = next;
    this.journalSize = 0;
    const { tasks, ...scalars } = state.toSnapshot(state.tasks.length);
    const upTo = state.tasks.length;
    this.compacting = (async () => {
      const temp = `${this.file}.compact`;
      let written = 0;
      try {
        const out = await open(
          temp,
          constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
          0o600,
        );
        try {
          const write = async (text: string) => {
            const bytes = Buffer.from(text);
            const { bytesWritten } = await out.write(bytes);
            if (bytesWritten !== bytes.length) throw new ShortWriteError('the write was cut short (is the disk full?)');
            written += bytesWritten;
          };
          const head = JSON.stringify({ version: STATE_VERSION, ...scalars, tasks });
          await write(head.slice(0, -2)); // without the closing `]}` of the empty task list
          for (let from = 0; from < upTo; from += COMPACT_SLICE) {
            const slice = state.toSnapshot(from, Math.min(from + COMPACT_SLICE, upTo)).tasks;
            await write((from === 0 ? '' : ',') + slice.map((task) => JSON.stringify(task)).join(','));
            await nextTurn();
          }
          await write(']}\n');
          await out.datasync();
        } finally {
          await out.close();
        }
        await rename(temp, this.file);
        this.fileSize = written;
        await old.close();
        await unlink(`${this.file}.journal`);
        await rename(nextPath, `${this.file}.journal`);
      } catch (error) {
        // Both journals stay and are read back in order; no further background compaction (it would reuse .next).
        this.compactAfterBytes = Number.POSITIVE_INFINITY;
        this.log(`sandbox: could not compact ${this.file}: ${problemWords(error)}`);
        await unlink(temp).catch(() => {});
      } finally {
        this.compacting = undefined;
      }
    })();
  }

  private changed(): void {
    this.dirty = true;
    this.running ??= this.run();
  }

  /**
   * Undefined when everything is on disk (the fast path of every read); otherwise resolves once the changes made so far
   * are fsynced: true, or false when the journal could not be written (the reply must not acknowledge them then).
   */
  settle(): Promise<boolean> | undefined {
    if (this.failing && !this.dirty) this.changed(); // write again before answering: no reply shows what is not on disk
    if (this.dirty) return (this.nextRound ??= newRound()).done;
    return this.inFlight?.done;
  }

  private async run(): Promise<void> {
    await nextTurn(); // let the changes of this turn of the event loop share one fsync
    while (this.dirty && this.state && this.journal) {
      this.dirty = false;
      const round = this.nextRound ?? newRound();
      this.nextRound = undefined;
      this.inFlight = round;
      const upTo = this.state.tasks.length;
      const line = Buffer.from(`${JSON.stringify(this.state.toSnapshot(this.savedTasks))}\n`);
      let saved = true;
      try {
        const { bytesWritten } = await this.journal.write(line);
        if (bytesWritten !== line.length)
          throw new ShortWriteError(
            `the write was cut short (${bytesWritten} of ${line.length} bytes: is the disk full?)`,
          );
        await this.journal.datasync();
        this.journalSize += bytesWritten;
        this.savedTasks = upTo;
        this.failing = false;
        if (!this.compacting && this.journalSize > Math.max(this.compactAfterBytes, this.fileSize)) {
          await this.startCompaction();
        }
      } catch (error) {
        saved = false;
        this.failing = true;
        this.log(`sandbox: could not save state to ${this.file}.journal: ${problemWords(error)}`);
        // Cut a partial line so the next append starts clean; its tasks are written again with the next change.
        await this.journal.truncate(this.journalSize).catch(() => {});
      }
      this.inFlight = undefined;
      round.resolve(saved);
    }
    this.running = undefined;
  }

  /** Waits for the journal, writes the whole account to the file, then removes the journal and releases the lock. */
  async close(): Promise<void> {
    while (this.running || this.compacting) await (this.running ?? this.compacting);
    try {
      this.compact();
      await unlink(`${this.file}.journal`); // only once the file holds everything
      await unlink(`${this.file}.journal.next`).catch(() => {}); // left by a compaction that failed
    } catch (error) {
      this.log(`sandbox: could not save state to ${this.file}: ${problemWords(error)}`);
    } finally {
      await this.journal?.close();
      this.journal = undefined;
      this.lock.release();
    }
  }
}

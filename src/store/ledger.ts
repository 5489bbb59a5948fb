/**
 * The local ledger of in-flight creates: `creates.json` in the cache directory, shared by every taskctl run
 * of this user (any profile), so that runs on one machine never take each other's tasks.
 *
 * - Write-ahead: an entry is written before its POST /tasks leaves (`begin`), and says what it sends (account, service,
 *   item count and an order-free digest of the items, never the items) and when.
 * - A run that learns its task (answered, or recovered by reconciliation) records it under the lock (`settle`,
 *   `claim`): a task named by another entry is that run's, and reconciliation never adopts it.
 * - An entry still sending, or whose run could not tell whether its request landed (`unknown`), may still be the
 *   creator of any identical task in its window: reconciliation adopts no such task (the caller's `contests`
 *   predicate decides, with its own knowledge of the server's clock).
 * - Bounded: an entry lives until its `expiresAt` (a sending entry of a run that died: its send plus the longest request
 *   and reconciliation; a settled one: CLAIM_KEEP_MS), and at most MAX_ENTRIES are kept (the oldest go first).
 * - Crash-safe: read-modify-write under `creates.json.lock` (lock-file.ts), replaced atomically (atomic-file.ts; not
 *   fsynced: a power cut ends every run its entries were for); an unreadable file is started afresh (its runs then
 *   count as another machine's).
 * - Journaled chunks: an entry may carry its job (the job id, in `journal`, and chunk index: never a path, which differs
 *   through a symlink or a copy); `transfer` hands it to the run that
 *   resumes that job, which then reconciles it as its own.
 */
import { describeDirectoryProblem, makeDirectory } from './make-dir.js';
import { join } from 'node:path';
import * as z from '../lib/zod.js';
import { NotRegularFileError, readRegularFile, removeLeftoverTemps, writeFileAtomicSync } from './atomic-file.js';
import { holderWords, waitForLock } from './lock-file.js';
import { thisOwner } from './process-owner.js';
import { randomHex } from './random-hex.js';
import { CliError, systemErrorWords } from '../errors.js';
import { sameCreation } from '../lib/task-state.js';

/** A settled entry (its task known, or its run finished without knowing) is kept this long for other runs to see. */
export const CLAIM_KEEP_MS = 10 * 60_000;
export const MAX_ENTRIES = 1000;
const LOCK_TIMEOUT_MS = 2_000;
const LOCK_STALE_MS = 30_000;
const MAX_FILE_BYTES = 4 * 1024 * 1024;

const JobSchema = z.object({ journal: z.string(), chunk: z.number().int().nonnegative() });
const EntrySchema = z.object({
  id: z.string(),
  run: z.string(),
  pid: z.number(),
  host: z.string(),
  /**
   * Where its pid is numbered and when its process wrote it (process-owner.ts): its run is judged as a lock's owner.
   * Absent from entries of earlier versions, judged by host and pid alone.
   */
  boot: z.string().optional(),
  pidns: z.string().optional(),
  ownedAt: z.number().optional(),
  account: z.string(),
  service: z.string(),
  count: z.number(),
  digest: z.string(),
  /** Local epoch ms, taken before the POST left. */
  sentAt: z.number(),
  state: z.enum(['sending', 'unknown', 'created']),
  taskId: z.number().optional(),
  /**
   * The claimed task as the service showed it when it was claimed: its `created_at` and item count. A task the
   * service shows under that id later with another service, count or creation time is another task (the service's
   * ids restarted: a sandbox started again without `--state`), which this claim does not name (`holdsTask`). Absent
   * from entries of earlier versions, and from an adoption by id alone.
   */
  taskCreatedAt: z.string().optional(),
  taskItems: z.number().optional(),
  /**
   * Local epoch ms at which the request's window closed (plus the margin of server-time.ts): its answered failure, or
   * the end of its reconciliation. Absent while it may still land (sending, reconciling an unanswered failure).
   */
  closedAt: z.number().optional(),
  expiresAt: z.number(),
  job: JobSchema.optional(),
  /**
   * Local epoch ms until which its request may still make its task: its send plus its own request timeout and the
   * landing margin. Absent from entries of earlier versions (a waiting run then counts to `expiresAt`).
   */
  landsUntil: z.number().optional(),
});
const FileSchema = z.object({ version: z.literal(1), entries: z.array(EntrySchema) });

export type LedgerJob = z.infer<typeof JobSchema>;
export type LedgerEntry = z.infer<typeof EntrySchema>;

/** What a create records before sending. */
export interface Intent {
  account: string;
  service: string;
  items: readonly string[];
  /** How long a sending entry outlives its send if its run dies (request timeout plus reconciliation). */
  liveForMs: number;
  job?: LedgerJob | undefined;
  /** When the request was sent, if before now (a journaled chunk's recorded send, entered again at resume). */
  sentAt?: number | undefined;
  /** How long past its send the request may still make its task (its own timeout and the landing margin). */
  landsWithinMs?: number | undefined;
}

/**
 * The ledger could not be read or written (locked for seconds, a read-only or hostile cache directory). Its message
 * is for people: what failed, on which file, in words.
 */
class LedgerUnavailableError extends Error {}

/** A failure in words: a usage error's own message (a file too large), else the system error's plain words. */
function inWords(error: unknown): string {
  return error instanceof CliError ? error.message : systemErrorWords(error);
}

/**
 * An order-free digest of a multiset of items (two 32-bit sums of FNV-1a hashes, and the count). A collision only makes
 * two different creates look alike, which makes reconciliation more careful (exit 9), never less.
 */
export function itemsDigest(items: readonly string[]): string {
  let a = 0;
  let b = 0;
  for (const item of items) {
    let h1 = 0x811c9dc5;
    let h2 = 0x01000193;
    for (let i = 0; i < item.length; i++) {
      const c = item.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
      h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
    }
    a = (a + h1) >>> 0;
    b = (b + Math.imul(h2 ^ (h2 >>> 15), 0x2c1b3c6d)) >>> 0;
  }
  return `${items.length}:${a.toString(16)}:${b.toString(16)}`;
}

/** This process as the owner of an entry written at `now`. */
function ownerOf(now: number): Pick<LedgerEntry, 'pid' | 'host' | 'boot' | 'pidns' | 'ownedAt'> {
  const { at, ...owner } = thisOwner(now);
  return { ...owner, ownedAt: at };
}

/** What a claim records of its task, and what a task the service shows now is compared with. */
export interface TaskFacts {
  id: number;
  service: string;
  total_items: number;
  created_at: string;
}

/**
 * Whether `entry`'s claim names `task` (an id alone: whether it names that id). A claim of the same id whose recorded
 * facts differ from the task's (another service, another item count, or more items than its request sent, another
 * creation time) is stale: the service gave that id out again, and the task is not the one claimed.
 */
function holdsTask(entry: LedgerEntry, task: number | TaskFacts): boolean {
  if (typeof task === 'number') return entry.taskId === task;
  if (entry.taskId !== task.id || entry.service !== task.service) return false;
  if (entry.taskItems === undefined ? task.total_items > entry.count : entry.taskItems !== task.total_items)
    return false;
  const at = entry.taskCreatedAt;
  return at === undefined || sameCreation(at, task.created_at);
}

/** What an entry records of the task it takes. */
function taskFields(task: number | TaskFacts): Pick<LedgerEntry, 'taskId' | 'taskCreatedAt' | 'taskItems'> {
  if (typeof task === 'number') return { taskId: task };
  return { taskId: task.id, taskCreatedAt: task.created_at, taskItems: task.total_items };
}

export type ClaimResult = { ok: true } | { ok: false; reason: 'claimed' | 'contested'; by: LedgerEntry };

export class CreateLedger {
  readonly path: string;
  /** This run's token: entries it wrote are its own. */
  readonly run: string;

  /**
   * `accountsOf`: the accounts one with an entry's account (other keys proved the same account after a rotation,
   * core/job/job-account.ts), itself included; by default, only itself.
   */
  constructor(
    private readonly dir: string,
    private readonly now: () => number,
    run?: string,
    private readonly accountsOf: (account: string) => ReadonlySet<string> = (account) => new Set([account]),
  ) {
    this.path = join(dir, 'creates.json');
    this.run = run ?? randomHex(8);
  }

  /** Why the ledger cannot be used, in words for a warning: what failed on which file, never an errno name. */
  problem(error: unknown): string {
    return error instanceof LedgerUnavailableError ? error.message : `${this.path}: ${inWords(error)}`;
  }

  /** Records a create about to be sent (before the POST leaves). */
  begin(intent: Intent): LedgerEntry {
    const entry = this.entryOf(intent);
    this.update((entries) => [...entries, entry]);
    return entry;
  }

  /**
   * Atomically: the entry of another run, not settled with a task, for the same account, service and items for which
   * `busy` holds (nothing written), or else `intent` recorded as sending (a create about to look for a task to reuse,
   * then send).
   */
  reserve(intent: Intent, busy: (other: LedgerEntry) => boolean): { entry: LedgerEntry } | { busy: LedgerEntry } {
    const entry = this.entryOf(intent);
    let result: { entry: LedgerEntry } | { busy: LedgerEntry } = { entry };
    const mine = this.accountsOf(entry.account);
    this.update((entries) => {
      const other = entries.find(
        (e) =>
          e.run !== this.run &&
          e.state !== 'created' &&
          mine.has(e.account) &&
          e.service === entry.service &&
          e.digest === entry.digest &&
          busy(e),
      );
      if (other) result = { busy: other };
      return other ? entries : [...entries, entry];
    });
    return result;
  }

  /** A reserved entry whose POST now leaves: written again as `begin` would write it, under its id. */
  restart(id: string, intent: Intent): LedgerEntry {
    const entry = { ...this.entryOf(intent), id };
    this.update((entries) =>
      entries.some((e) => e.id === id) ? entries.map((e) => (e.id === id ? entry : e)) : [...entries, entry],
    );
    return entry;
  }

  private entryOf(intent: Intent): LedgerEntry {
    const now = this.now();
    const sentAt = intent.sentAt ?? now;
    return {
      id: randomHex(8),
      run: this.run,
      ...ownerOf(now),
      account: intent.account,
      service: intent.service,
      count: intent.items.length,
      digest: itemsDigest(intent.items),
      sentAt,
      state: 'sending',
      expiresAt: now + intent.liveForMs,
      ...(intent.job ? { job: intent.job } : {}),
      ...(intent.landsWithinMs === undefined ? {} : { landsUntil: sentAt + intent.landsWithinMs }),
    };
  }

  /**
   * The task is this entry's from now on, no other entry checked (`resume --adopt` of a chunk with no send on record;
   * an answer, and an adoption with one, take it with `claim`).
   */
  settle(id: string, taskId: number): void {
    this.change(id, (entry) => ({ ...entry, state: 'created', taskId, expiresAt: this.now() + CLAIM_KEEP_MS }));
  }

  /**
   * The run cannot (yet) tell whether its request created a task: it stays a possible creator, of tasks in its window
   * (closed at `closedAt`, if given), for CLAIM_KEEP_MS.
   */
  unknown(id: string, closedAt?: number): void {
    this.change(id, (entry) => {
      const { closedAt: _old, ...rest } = entry;
      return {
        ...rest,
        state: 'unknown',
        ...(closedAt === undefined ? {} : { closedAt }),
        expiresAt: Math.max(entry.expiresAt, this.now() + CLAIM_KEEP_MS),
      };
    });
  }

  /** The request provably created nothing (never sent, or refused): the entry goes. */
  drop(id: string): void {
    this.update((entries) => entries.filter((entry) => entry.id !== id));
  }

  /**
   * Entries of other runs that bear on a reconciliation of `mine`: the same account, service and items (possible
   * creators), and every claim of that account (tasks that are someone else's).
   */
  others(mine: LedgerEntry): LedgerEntry[] {
    const now = this.now();
    const accounts = this.accountsOf(mine.account);
    return this.read().filter(
      (entry) =>
        entry.id !== mine.id &&
        accounts.has(entry.account) &&
        entry.expiresAt > now &&
        (entry.taskId !== undefined || (entry.digest === mine.digest && entry.service === mine.service)),
    );
  }

  /**
   * Takes the task for `mine`, atomically: refused when another entry names it (`holdsTask`: a claim of the same id
   * whose recorded facts differ names another task), or when `contests` says another possible creator (sending or
   * unknown, same items) could have made it. Its facts are recorded with the claim.
   */
  claim(mine: LedgerEntry, task: number | TaskFacts, contests: (other: LedgerEntry) => boolean): ClaimResult {
    let result: ClaimResult = { ok: true };
    const accounts = this.accountsOf(mine.account);
    this.update((entries) => {
      const now = this.now();
      const others = entries.filter((o) => o.id !== mine.id && accounts.has(o.account) && o.expiresAt > now);
      const owner = others.find((other) => holdsTask(other, task));
      if (owner) {
        result = { ok: false, reason: 'claimed', by: owner };
        return entries;
      }
      for (const other of others) {
        if (other.state !== 'created' && other.digest === mine.digest && other.service === mine.service) {
          if (contests(other)) {
            result = { ok: false, reason: 'contested', by: other };
            return entries;
          }
        }
      }
      return entries.map((entry) =>
        entry.id === mine.id
          ? { ...entry, state: 'created', ...taskFields(task), expiresAt: now + CLAIM_KEEP_MS }
          : entry,
      );
    });
    return result;
  }

  /** Whether `entry`'s claim names `task` (`holdsTask`; for runs that load this module lazily). */
  holds(entry: LedgerEntry, task: number | TaskFacts): boolean {
    return holdsTask(entry, task);
  }

  /** Live entries of other runs, not settled with a task, for the same account, service and items as `mine`. */
  unsettled(mine: Pick<LedgerEntry, 'account' | 'service' | 'digest'>): LedgerEntry[] {
    const accounts = this.accountsOf(mine.account);
    return this.read().filter(
      (e) =>
        e.run !== this.run &&
        e.state !== 'created' &&
        accounts.has(e.account) &&
        e.service === mine.service &&
        e.digest === mine.digest,
    );
  }

  /**
   * The live entries of job `journal`'s chunks settled with a task, of `account` (or an account one with it): a chunk of
   * the job that has one was created, whatever its journal says (one put back from an earlier copy,
   * docs/behaviour.md#the-ledger).
   */
  settledOfJob(journal: string, account: string): LedgerEntry[] {
    const accounts = this.accountsOf(account);
    return this.read().filter(
      (entry) =>
        entry.job?.journal === journal &&
        entry.state === 'created' &&
        entry.taskId !== undefined &&
        accounts.has(entry.account),
    );
  }

  /** Whether `entry` was written for `items` of `service` (its count and digest). */
  sent(entry: LedgerEntry, service: string, items: readonly string[]): boolean {
    return entry.service === service && entry.count === items.length && entry.digest === itemsDigest(items);
  }

  /** The entry made for a journaled chunk, if any (live). */
  findJob(job: LedgerJob): LedgerEntry | undefined {
    const now = this.now();
    return this.read().find(
      (entry) => entry.job?.journal === job.journal && entry.job.chunk === job.chunk && entry.expiresAt > now,
    );
  }

  /**
   * `resume` of a journal takes over the entry of one of its chunks: from now on it is this run's own (its task, if it
   * landed, is no other run's to refuse), living at least `liveForMs` more. Undefined when no live entry carries that job.
   */
  transfer(job: LedgerJob, liveForMs = 0): LedgerEntry | undefined {
    let taken: LedgerEntry | undefined;
    this.update((entries) =>
      entries.map((entry) => {
        const now = this.now();
        if (entry.job?.journal !== job.journal || entry.job.chunk !== job.chunk || entry.expiresAt <= now) return entry;
        const expiresAt = Math.max(entry.expiresAt, now + liveForMs);
        const { boot: _boot, pidns: _pidns, ...rest } = entry;
        taken = { ...rest, run: this.run, ...ownerOf(now), expiresAt };
        return taken;
      }),
    );
    return taken;
  }

  /** Every entry of a journaled chunk goes: the chunk is sent again (a resend), its earlier request out of reach. */
  dropJob(job: LedgerJob): void {
    this.update((entries) => entries.filter((e) => e.job?.journal !== job.journal || e.job.chunk !== job.chunk));
  }

  /** The live entries (expired ones are left out). */
  read(): LedgerEntry[] {
    let text: string | undefined;
    try {
      text = readRegularFile(this.path, { what: 'ledger file', maxBytes: MAX_FILE_BYTES });
    } catch (error) {
      if (error instanceof NotRegularFileError) throw new LedgerUnavailableError(error.message);
      return [];
    }
    if (text === undefined) return [];
    try {
      const parsed = FileSchema.safeParse(JSON.parse(text));
      const now = this.now();
      return parsed.success ? parsed.data.entries.filter((entry) => entry.expiresAt > now) : [];
    } catch {
      return []; // corrupt: started afresh by the next write
    }
  }

  private change(id: string, edit: (entry: LedgerEntry) => LedgerEntry): void {
    this.update((entries) => entries.map((entry) => (entry.id === id ? edit(entry) : entry)));
  }

  /** Read-modify-write under the lock; expired entries go, and the oldest beyond MAX_ENTRIES. */
  private update(edit: (entries: LedgerEntry[]) => LedgerEntry[]): void {
    const problem = makeDirectory(this.dir, 0o700);
    if (problem)
      throw new LedgerUnavailableError(
        `cannot make the cache directory ${this.dir}: ${describeDirectoryProblem(problem)}`,
      );
    let lock;
    try {
      lock = waitForLock(`${this.path}.lock`, LOCK_TIMEOUT_MS, { staleAfterMs: LOCK_STALE_MS });
    } catch (error) {
      throw new LedgerUnavailableError(`cannot lock ${this.path}.lock: ${inWords(error)}`);
    }
    if (!('release' in lock)) throw new LedgerUnavailableError(`${this.path} is locked by ${holderWords(lock.heldBy)}`);
    try {
      removeLeftoverTemps(this.path);
      let entries = edit(this.read());
      if (entries.length > MAX_ENTRIES) entries = [...entries].sort((a, b) => a.sentAt - b.sentAt).slice(-MAX_ENTRIES);
      // Not fsynced (about 20 ms a create saved): a process crash still leaves the old or the new file, and after a power
      // cut no run that the lost entries were for is alive any more.
      writeFileAtomicSync(this.path, JSON.stringify({ version: 1, entries }), 0o600, { durable: false });
    } catch (error) {
      if (error instanceof LedgerUnavailableError) throw error;
      throw new LedgerUnavailableError(`cannot write ${this.path}: ${inWords(error)}`);
    } finally {
      lock.release();
    }
  }
}

/**
 * A small local cache for shell completion: service names and recent task ids, refreshed as a side effect of
 * commands that already fetched them, so TAB never needs the network. Best effort, and bounded both ways: a cache that
 * cannot be read (corrupt, larger than MAX_CACHE_BYTES, a symlink or FIFO) is ignored with a `--verbose` note, never a
 * reason to fail a command; the next update rewrites a corrupt or oversized one (a symlink or FIFO is never written
 * through: it is skipped). What is written is bounded too: names past MAX_NAME_CHARS are left out, lists are capped.
 * Updates are read-modify-write under `completion.json.lock`, so concurrent commands do not drop each other's ids.
 * Task ids belong to one account (server and key): another profile's ids are never offered, and services and prices
 * belong to one server.
 */
import { join } from 'node:path';
import * as z from '../lib/zod.js';
import { CliError, systemErrorWords } from '../errors.js';
import { NotRegularFileError, readRegularFile, removeLeftoverTemps, writeFileAtomicSync } from './atomic-file.js';
import { waitForLock } from './lock-file.js';
import { makeDirectory } from './make-dir.js';

// Built on first read (`z.lazy` parses exactly as the schema it wraps): every command loads this module, few read it.
const CacheSchema = z.lazy(() =>
  z.object({
    services: z.array(z.string()).default([]),
    /** Price per item by service, which server they came from, and when: `create` reuses them for a few minutes. */
    prices: z.record(z.string(), z.number()).default({}),
    pricesFrom: z.string().default(''),
    pricesAt: z.number().default(0),
    tasks: z.array(z.object({ id: z.number(), service: z.string(), status: z.string() })).default([]),
    /** The account the tasks belong to (`accountKey`). */
    tasksFrom: z.string().default(''),
    updatedAt: z.number().default(0),
  }),
);
export type CompletionCache = z.infer<typeof CacheSchema>;

const MAX_TASKS = 50;
/** The file is read only up to this size; an update never writes more. */
export const MAX_CACHE_BYTES = 1024 * 1024;
/** Longer service names or statuses are not completion candidates (nobody types them); they are not kept. */
const MAX_NAME_CHARS = 256;
/** Services kept for completion and prices. */
const MAX_SERVICES = 1000;
const fits = (text: string) => text.length <= MAX_NAME_CHARS;
/** Holders keep the lock for a millisecond; past this the update is skipped (it is only a cache). */
const CACHE_LOCK_TIMEOUT_MS = 2_000;
const CACHE_LOCK_STALE_MS = 30_000;

const empty = (): CompletionCache => ({
  services: [],
  prices: {},
  pricesFrom: '',
  pricesAt: 0,
  tasks: [],
  tasksFrom: '',
  updatedAt: 0,
});

/** Which account a task list belongs to: the server and the key, hashed (the cache never holds the key). */
export function accountKey(baseUrl: string, apiKey: string): string {
  // node:crypto on first use: every command loads this module, not every one needs an account key (3 ms at start-up).
  return process
    .getBuiltinModule('node:crypto')
    .createHash('sha256')
    .update(`${baseUrl}\n${apiKey}`)
    .digest('hex')
    .slice(0, 16);
}

type CachedTask = CompletionCache['tasks'][number];

export class CompletionCacheStore {
  readonly path: string;
  private accountValue: string | undefined;
  private accountOf: (() => string) | undefined;
  /** The account of this command (set once its API settings are known); tasks are remembered and offered for it only. */
  get account(): string | undefined {
    if (this.accountOf) {
      this.accountValue = this.accountOf();
      this.accountOf = undefined;
    }
    return this.accountValue;
  }
  set account(account: string | undefined) {
    this.accountOf = undefined;
    this.accountValue = account;
  }
  /** The account of `baseUrl` and `apiKey`, hashed when first read: a command that never reads it loads no crypto. */
  bindAccount(baseUrl: string, apiKey: string): void {
    this.accountOf = () => accountKey(baseUrl, apiKey);
  }
  /** `note`: hears why a cache file was ignored (the CLI prints it with `--verbose`). `lockTimeoutMs`: how long an
   * update waits for another command's before it is skipped. */
  constructor(
    private readonly dir: string,
    private readonly now: () => number,
    private readonly note: (message: string) => void = () => undefined,
    private readonly lockTimeoutMs = CACHE_LOCK_TIMEOUT_MS,
  ) {
    this.path = join(dir, 'completion.json');
  }

  /** The cache, or an empty one when the file cannot be read (said once per command through `note`). */
  read(): CompletionCache {
    try {
      return this.readOrThrow();
    } catch (error) {
      this.noteOnce(error);
      return empty(); // unreadable, oversized or corrupt: ignored, and rebuilt by the next write
    }
  }

  private readOrThrow(): CompletionCache {
    const text = readRegularFile(this.path, { what: 'cache file', maxBytes: MAX_CACHE_BYTES });
    return text === undefined ? empty() : CacheSchema.parse(JSON.parse(text));
  }

  private noted = false;
  private noteOnce(error: unknown): void {
    if (this.noted) return;
    this.noted = true;
    const why = error instanceof SyntaxError || error instanceof z.ZodError ? 'is not a valid cache' : undefined;
    // A refusal of readRegularFile already says what and where; a failed read is put in words.
    const detail =
      why !== undefined
        ? `${this.path} ${why}`
        : error instanceof CliError
          ? error.message
          : `${this.path}: ${systemErrorWords(error)}`;
    this.note(`completion cache ignored: ${detail}`);
  }

  /** Services as `baseUrl` listed them: names for completion, prices for `create`'s estimate. */
  rememberServices(services: ReadonlyArray<{ service: string; pricing: number }>, baseUrl: string): void {
    const kept = services.filter((s) => fits(s.service)).slice(0, MAX_SERVICES);
    this.update((current) => ({
      ...current,
      services: kept.map((s) => s.service),
      prices: Object.fromEntries(kept.map((s) => [s.service, s.pricing])),
      pricesFrom: baseUrl,
      pricesAt: this.now(),
    }));
  }

  /** Prices `baseUrl` gave less than `maxAgeMs` ago, or undefined: another server's prices never count. */
  freshPrices(maxAgeMs: number, baseUrl: string): Record<string, number> | undefined {
    const cache = this.read();
    const age = this.now() - cache.pricesAt;
    const fresh = cache.pricesFrom === baseUrl && age >= 0 && age < maxAgeMs;
    return fresh && Object.keys(cache.prices).length > 0 ? cache.prices : undefined;
  }

  /** Service names `baseUrl` listed, or none. */
  services(baseUrl: string): string[] {
    const cache = this.read();
    return cache.pricesFrom === baseUrl ? cache.services : [];
  }

  /** Recent tasks of this command's account, or none (another account's, or no account known). */
  recentTasks(): CachedTask[] {
    const cache = this.read();
    return this.account !== undefined && cache.tasksFrom === this.account ? cache.tasks : [];
  }

  /** Newest first, deduplicated by id, at most 50; they replace another account's list. */
  rememberTasks(tasks: ReadonlyArray<{ id: number; service: string; status: string }>): void {
    const account = this.account;
    if (account === undefined) return;
    this.update((current) => {
      const byId = new Map<number, CachedTask>();
      for (const task of [...tasks, ...(current.tasksFrom === account ? current.tasks : [])]) {
        if (byId.has(task.id) || !fits(task.service) || !fits(task.status)) continue;
        byId.set(task.id, { id: task.id, service: task.service, status: task.status });
      }
      const recent = [...byId.values()].sort((a, b) => b.id - a.id).slice(0, MAX_TASKS);
      return { ...current, tasks: recent, tasksFrom: account };
    });
  }

  /** Re-reads the file under the lock so another command's update made meanwhile is kept, then replaces it. */
  private update(change: (current: CompletionCache) => CompletionCache): void {
    let lock;
    try {
      // The guarded walk (docs/behaviour.md#files): a cache directory that cannot be made is a run without the cache.
      if (makeDirectory(this.dir) !== undefined) return;
      lock = waitForLock(`${this.path}.lock`, this.lockTimeoutMs, { staleAfterMs: CACHE_LOCK_STALE_MS });
    } catch {
      return; // the cache only speeds up completion; never fail a command over it
    }
    if (!('release' in lock)) return;
    try {
      removeLeftoverTemps(this.path);
      let current: CompletionCache;
      try {
        current = this.readOrThrow();
      } catch (error) {
        // A link or FIFO someone put there is left alone; a corrupt or oversized file is replaced.
        if (error instanceof NotRegularFileError) return;
        this.noteOnce(error);
        current = empty();
      }
      const next = change(current);
      const text = JSON.stringify({ ...next, updatedAt: this.now() });
      // Bounded on write as on read: what could not be read back is not written.
      if (Buffer.byteLength(text) > MAX_CACHE_BYTES) return;
      // Not fsynced: a power cut may bring back the previous cache, which is still a valid one (the rename is atomic).
      writeFileAtomicSync(this.path, text, 0o600, { durable: false });
    } catch {
      // Never through a link or into a FIFO, and never failing the command that already did its work.
    } finally {
      lock.release();
    }
  }
}

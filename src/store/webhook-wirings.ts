/**
 * The sandbox webhook URLs that running `webhook listen` processes set (`webhook-wirings.json` in the cache dir), so a
 * listener killed before it could restore the previous URL (kill -9) is undone by the next one. Read-modify-write under
 * `webhook-wirings.json.lock`, replaced atomically; an unreadable file is started afresh (its wirings are then left as
 * they are, which is what the sandbox does without taskctl).
 */
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import * as z from '../lib/zod.js';
import { readRegularFile, removeLeftoverTemps, writeFileAtomicSync } from './atomic-file.js';
import { lockTimeoutError, waitForLock } from './lock-file.js';
import { ownerGone, thisOwner } from './process-owner.js';
import { describeDirectoryProblem, makeDirectory } from './make-dir.js';
import { writeAdvice } from './write-advice.js';

const WiringSchema = z.object({
  pid: z.number(),
  host: z.string(),
  /** The sandbox's origin (`http://127.0.0.1:8787`). */
  sandbox: z.string(),
  /** The URL the listener set. */
  url: z.string(),
  /** The URL it replaced (null: none was set), put back when the listener ends if the URL is still its own. */
  previous: z.string().nullable(),
  /** Epoch ms of the wiring. */
  at: z.number(),
  /** Where its pid is numbered (process-owner.ts): absent from earlier versions, judged by host and pid alone. */
  boot: z.string().optional(),
  pidns: z.string().optional(),
});
const FileSchema = z.object({ version: z.literal(1), wirings: z.array(WiringSchema) });

export type Wiring = z.infer<typeof WiringSchema>;

const LOCK_TIMEOUT_MS = 2_000;
const LOCK_STALE_MS = 30_000;
const MAX_FILE_BYTES = 256 * 1024;
/** Wirings kept at most (the oldest go first): one per listener running on this machine. */
const MAX_WIRINGS = 200;

export class WebhookWirings {
  readonly path: string;

  constructor(private readonly dir: string) {
    this.path = join(dir, 'webhook-wirings.json');
  }

  /** Records a wiring of this process (before the URL is set, so a kill right after still leaves the record). */
  add(wiring: Omit<Wiring, 'pid' | 'host' | 'boot' | 'pidns'>): Wiring {
    const entry: Wiring = { ...wiring, ...thisOwner(wiring.at) };
    this.update((wirings) => [...wirings.filter((w) => !same(w, entry)), entry]);
    return entry;
  }

  /**
   * Removes a wiring once undone (or given up). A later wiring of the same sandbox that replaced this one now replaces
   * this one's previous URL instead: a listener that ends while a second one is wired leaves no dead URL to restore.
   */
  remove(wiring: Wiring): void {
    this.update((wirings) =>
      wirings
        .filter((w) => !same(w, wiring))
        .map((w) =>
          w.sandbox === wiring.sandbox && w.previous === wiring.url ? { ...w, previous: wiring.previous } : w,
        ),
    );
  }

  /** `wiring` as recorded now: its previous URL may have been rewritten by `remove` of the wiring it replaced. */
  find(wiring: Wiring): Wiring | undefined {
    return this.read().find((w) => same(w, wiring));
  }

  /**
   * The wirings of `sandbox` left by listeners that have surely ended (judged as a lock's owner: a listener of another
   * host, machine or container counts as running), newest first.
   */
  leftBehind(sandbox: string): Wiring[] {
    return this.read()
      .filter((w) => w.sandbox === sandbox && ownerGone(w))
      .reverse();
  }

  private read(): Wiring[] {
    let text: string | undefined;
    try {
      text = readRegularFile(this.path, { what: 'webhook wirings file', maxBytes: MAX_FILE_BYTES });
    } catch {
      return [];
    }
    if (text === undefined) return [];
    try {
      const parsed = FileSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data.wirings : [];
    } catch {
      return []; // corrupt: started afresh by the next write
    }
  }

  private update(edit: (wirings: Wiring[]) => Wiring[]): void {
    const problem = makeDirectory(this.dir);
    if (problem !== undefined)
      throw new UsageError(
        `cannot make the cache directory ${this.dir}: ${describeDirectoryProblem(problem)}`,
        writeAdvice(
          problem,
          'set TASKCTL_CACHE_DIR to another directory',
          'Set TASKCTL_CACHE_DIR to a writable directory.',
        ),
      );
    const lockPath = `${this.path}.lock`;
    const lock = waitForLock(lockPath, LOCK_TIMEOUT_MS, { staleAfterMs: LOCK_STALE_MS });
    if (!('release' in lock))
      throw lockTimeoutError('webhook wirings file', this.path, lock.heldBy, {
        timeoutMs: LOCK_TIMEOUT_MS,
        staleAfterMs: LOCK_STALE_MS,
      });
    try {
      removeLeftoverTemps(this.path);
      const wirings = edit(this.read()).slice(-MAX_WIRINGS);
      writeFileAtomicSync(this.path, JSON.stringify({ version: 1, wirings }), 0o600, { durable: false });
    } finally {
      lock.release();
    }
  }
}

function same(a: Wiring, b: Wiring): boolean {
  return (
    a.pid === b.pid &&
    a.host === b.host &&
    a.boot === b.boot &&
    a.pidns === b.pidns &&
    a.sandbox === b.sandbox &&
    a.url === b.url
  );
}

/**
 * `accounts.json` in the state directory (docs/behaviour.md#state-directory): pairs of account hashes (`accountKey`:
 * base URL and key) proved to be one account, each by a task of a job read with the new key (core/job/job-account.ts).
 * A job created before a key rotation is then continued under the new key without reading again. Never the keys.
 * Read as the other state files are (no symlink or FIFO followed, bounded); changed under `accounts.json.lock`:
 * re-read, add, replaced atomically. One that cannot be read counts as none: the job's account is proved again.
 */
import { join } from 'node:path';
import * as z from '../lib/zod.js';
import { readRegularFile, removeLeftoverTemps, writeFileAtomicSync } from './atomic-file.js';
import { lockTimeoutError, waitForLock } from './lock-file.js';
import { makeStateDirectory } from './state-dir.js';

const AliasSchema = z.object({
  /** The account of the key that proved it (the current one then). */
  account: z.string(),
  /** The account of the job it proved it with. */
  same_as: z.string(),
  /** The job and its task read, and when (ISO): for a person who wonders why. */
  job: z.string().nullable(),
  task: z.number(),
  at: z.string(),
});
const FileSchema = z.lazy(() => z.object({ version: z.literal(1), aliases: z.array(AliasSchema) }));
export type AccountAlias = z.infer<typeof AliasSchema>;

/** A key rotated every day for years stays far below; past it the oldest pairs go (proved again if ever needed). */
const MAX_ALIASES = 1000;
const MAX_BYTES = 1024 * 1024;
/** Holders keep the lock for the milliseconds of one read-modify-write; as the config file's lock. */
const LOCK_WAIT = { timeoutMs: 10_000, staleAfterMs: 30_000 };

export function aliasesPath(stateDir: string): string {
  return join(stateDir, 'accounts.json');
}

/** Every pair recorded, or none when there is no file or it cannot be read (a link, garbage, too large). */
export function readAliases(stateDir: string): AccountAlias[] {
  try {
    const text = readRegularFile(aliasesPath(stateDir), { what: 'state file', maxBytes: MAX_BYTES });
    return text === undefined ? [] : FileSchema.parse(JSON.parse(text)).aliases;
  } catch {
    return [];
  }
}

/** Adds `alias` (a pair already there is kept as it was). Throws when the state directory cannot be written. */
export function addAlias(stateDir: string, alias: AccountAlias): void {
  makeStateDirectory(stateDir);
  const path = aliasesPath(stateDir);
  const lock = waitForLock(`${path}.lock`, LOCK_WAIT.timeoutMs, { staleAfterMs: LOCK_WAIT.staleAfterMs });
  if (!('release' in lock)) throw lockTimeoutError('state file', path, lock.heldBy, LOCK_WAIT);
  try {
    removeLeftoverTemps(path);
    const aliases = readAliases(stateDir);
    const known = aliases.some((a) => a.account === alias.account && a.same_as === alias.same_as);
    if (known) return;
    const kept = [...aliases, alias].slice(-MAX_ALIASES);
    writeFileAtomicSync(path, `${JSON.stringify({ version: 1, aliases: kept }, null, 2)}\n`, 0o600, {
      maxBytes: MAX_BYTES,
    });
  } finally {
    lock.release();
  }
}

/**
 * `account` and every account proved one with it (each pair both ways, and through one another): its whole group, found
 * once, so that comparisons in loops are set look-ups.
 */
export function accountsOf(aliases: readonly AccountAlias[], account: string): Set<string> {
  const group = new Set([account]);
  const queue = [account];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    for (const alias of aliases) {
      const other = alias.account === next ? alias.same_as : alias.same_as === next ? alias.account : undefined;
      if (other === undefined || group.has(other)) continue;
      group.add(other);
      queue.push(other);
    }
  }
  return group;
}

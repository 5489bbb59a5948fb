/** Journals of `create --journal` written as a finished (or stopped) job would leave them, for the `--job` tests. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { accountKey } from '../../../../src/store/cache.js';
import { API_KEY, BASE_URL } from '../../commands/run-in-process.js';

export const SERVICE = 'domain_check_availability';

export interface JournalSpec {
  /** Items of the whole job; chunks of `chunkSize`. */
  items: number;
  chunkSize: number;
  /** Task ids by chunk (1-based order); a missing or undefined entry is a chunk without a task. */
  tasks: ReadonlyArray<number | undefined>;
  baseUrl?: string;
  apiKey?: string;
  service?: string;
  /** Appends the `done` record. Default: every chunk has a task. */
  done?: boolean;
  /** The `created_at` each `created` record keeps of its task (a task read under the id made at another time is lost). */
  createdAt?: string;
}

/** Writes the journal into a fresh directory (removed after the test) and returns its path. */
export function writeJournal(spec: JournalSpec, dir = tempDir()): string {
  const chunks = Math.ceil(spec.items / spec.chunkSize);
  const job = {
    type: 'job',
    version: 1,
    created_at: '2025-01-15T12:00:00.000Z',
    service: spec.service ?? SERVICE,
    base_url: spec.baseUrl ?? BASE_URL,
    account: accountKey(spec.baseUrl ?? BASE_URL, spec.apiKey ?? API_KEY),
    chunk_size: spec.chunkSize,
    format: null,
    column: null,
    validate: true,
    keep_duplicates: false,
    skip_invalid: false,
    inputs: [{ kind: 'file', path: join(dir, 'items.txt'), format: 'lines', size: 1, sha256: 'x' }],
    items: spec.items,
    items_sha256: 'y',
    chunks,
  };
  const lines: object[] = [job];
  spec.tasks.forEach((task, index) => {
    const chunk = index + 1;
    const count = Math.min(spec.chunkSize, spec.items - index * spec.chunkSize);
    lines.push({
      type: 'send',
      chunk,
      first: index * spec.chunkSize,
      count,
      sha256: 'z',
      sent_at: 1,
      settle_after: 2,
      before: [],
      before_complete: true,
    });
    if (task !== undefined)
      lines.push({
        type: 'created',
        chunk,
        task,
        cost: count,
        how: 'answered',
        ...(spec.createdAt !== undefined && { created_at: spec.createdAt }),
      });
  });
  const complete = spec.tasks.length === chunks && spec.tasks.every((task) => task !== undefined);
  if (spec.done ?? complete) lines.push({ type: 'done', tasks: chunks, items: spec.items, cost: spec.items });
  const path = join(dir, 'job.jsonl');
  writeFileSync(path, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  return path;
}

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-job-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

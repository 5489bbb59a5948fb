/**
 * A job's journal as a scenario test reads and edits it (as if its run was killed at some record): its lines parsed,
 * and the journal written again with only the records kept.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export type JournalLine = Record<string, unknown>;

/** Every record of the journal at `path`, parsed. */
export function journalLines(path: string): JournalLine[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as JournalLine);
}

/**
 * Writes the journal at `path` again with only the records `keep` keeps (each one mapped by `map`, when given), and
 * the cache directory `cache` as a run killed at the last record kept would have left it (`killedThere`): by default,
 * for a journal of a state directory (`HOME/state/jobs/ID.jsonl`, runTaskctl's layout), the one beside it (`HOME/cache`).
 */
export function keepJournalLines(
  path: string,
  keep: (record: JournalLine) => boolean,
  map: (record: JournalLine) => JournalLine = (record) => record,
  cache = basename(dirname(dirname(path))) === 'state' ? join(dirname(dirname(dirname(path))), 'cache') : undefined,
): void {
  const kept = journalLines(path)
    .filter(keep)
    .map((record) => map(record));
  writeFileSync(path, kept.map((record) => `${JSON.stringify(record)}\n`).join(''));
  if (cache !== undefined) killedThere(cache, path, kept);
}

/**
 * The cache directory `cache` as a run of the job killed at the last of the records `kept` would have left it: its
 * ledger holds no entry of a chunk no kept record names (that run never sent it), and the record of where the job was
 * last run says how far its journal `path` had got then (else the journal would be one put back from an earlier copy,
 * docs/behaviour.md#jobs).
 */
function killedThere(cache: string, path: string, kept: readonly JournalLine[]): void {
  const id = kept[0]?.id;
  if (typeof id !== 'string') return;
  const named = new Set(kept.flatMap((record) => (typeof record.chunk === 'number' ? [record.chunk] : [])));
  const ledger = join(cache, 'creates.json');
  if (existsSync(ledger)) {
    const file = JSON.parse(readFileSync(ledger, 'utf8')) as {
      entries: Array<{ job?: { journal: string; chunk: number } }>;
    };
    file.entries = file.entries.filter((entry) => entry.job?.journal !== id || named.has(entry.job.chunk));
    writeFileSync(ledger, JSON.stringify(file));
  }
  const place = join(cache, 'places', `${id}.json`);
  if (existsSync(place)) {
    const record = JSON.parse(readFileSync(place, 'utf8')) as { size?: number; reached?: number };
    if (record.size !== undefined) {
      record.size = statSync(path).size;
      record.reached = Math.max(0, ...named);
      writeFileSync(place, `${JSON.stringify(record)}\n`);
    }
  }
}

/**
 * A job of one-item chunks made by `run` (a `taskctl` run in the home `home`), its journal then kept as if the run was
 * killed while chunk 4's request was in flight (records mapped by `map`, when given, as `keepJournalLines`). The
 * restart scenarios of `resume` start from it. Returns the job's id and its journal's path.
 */
export async function jobStoppedAtChunk4(
  run: (argv: string[]) => Promise<{ code: number; stderr: string }>,
  home: string,
  service: string,
  items: readonly string[],
  map?: (record: JournalLine) => JournalLine,
): Promise<{ job: string; journal: string }> {
  const input = join(home, 'in.txt');
  writeFileSync(input, `${items.join('\n')}\n`);
  const created = await run(['create', service, '-f', input, '--chunk-size', '1', '-y']);
  if (created.code !== 0) throw new Error(`the job's create failed (${created.code}): ${created.stderr}`);
  const job = /job (j-[0-9a-z]+): taskctl jobs/.exec(created.stderr)?.[1] ?? '';
  const journal = join(home, 'state', 'jobs', `${job}.jsonl`);
  keepJournalLines(
    journal,
    (record) =>
      record.type !== 'done' &&
      !(typeof record.chunk === 'number' && record.chunk >= 4 && !(record.chunk === 4 && record.type === 'send')),
    map,
  );
  return { job, journal };
}

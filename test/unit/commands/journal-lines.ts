/**
 * A job's journal as a scenario test reads and edits it (as if its run was killed at some record): its lines parsed,
 * and the journal written again with only the records kept.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type JournalLine = Record<string, unknown>;

/** Every record of the journal at `path`, parsed. */
export function journalLines(path: string): JournalLine[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as JournalLine);
}

/** Writes the journal at `path` again with only the records `keep` keeps (each one mapped by `map`, when given). */
export function keepJournalLines(
  path: string,
  keep: (record: JournalLine) => boolean,
  map: (record: JournalLine) => JournalLine = (record) => record,
): void {
  writeFileSync(
    path,
    journalLines(path)
      .filter(keep)
      .map((record) => `${JSON.stringify(map(record))}\n`)
      .join(''),
  );
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

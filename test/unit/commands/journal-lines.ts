/**
 * A job's journal as a scenario test reads and edits it (as if its run was killed at some record): its lines parsed,
 * and the journal written again with only the records kept.
 */
import { readFileSync, writeFileSync } from 'node:fs';

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

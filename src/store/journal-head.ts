/**
 * How a job's journal starts: its first line is the job record (core/submit/journal-records.ts), written with `type`
 * first, after a UTF-8 BOM if something put one there (the journal reader reads through it). Apart from that module, which loads zod, and from journal-file.ts, which loads the locks: the checks that a
 * file given for something else is no journal (`--report junit=FILE`, `webhook listen --spool FILE`, both before
 * they replace it) are made at start-up, and load neither.
 */
import { closeSync, constants, lstatSync, openSync, readSync } from 'node:fs';

/** The first bytes of every journal. */
export const JOB_RECORD_START = '{"type":"job"';

/** A UTF-8 byte-order mark, as text: the journal reader reads through one at the start, so these checks do too. */
const BOM = '\uFEFF';

/** True for a text that starts as a journal does (its job record, after a UTF-8 BOM if there is one). */
export function isJournalText(text: string): boolean {
  return (text.startsWith(BOM) ? text.slice(BOM.length) : text).startsWith(JOB_RECORD_START);
}

/**
 * True for a regular file whose first bytes are a journal's job record (after a UTF-8 BOM if there is one); never
 * opens anything but a regular file.
 */
export function startsWithJobRecord(path: string): boolean {
  let fd: number | undefined;
  try {
    if (!lstatSync(path).isFile()) return false;
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const head = Buffer.alloc(Buffer.byteLength(BOM) + JOB_RECORD_START.length);
    const read = readSync(fd, head, 0, head.length, 0);
    return isJournalText(head.subarray(0, read).toString('utf8'));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

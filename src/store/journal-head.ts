/**
 * How a job's journal starts: its first line is the job record (core/submit/journal-records.ts), written with `type`
 * first. Apart from that module, which loads zod, and from journal-file.ts, which loads the locks: the checks that a
 * file given for something else is no journal (`--report junit=FILE`, `webhook listen --spool FILE`, both before
 * they replace it) are made at start-up, and load neither.
 */
import { closeSync, constants, lstatSync, openSync, readSync } from 'node:fs';

/** The first bytes of every journal. */
export const JOB_RECORD_START = '{"type":"job"';

/** True for a regular file whose first bytes are a journal's job record; never opens anything but a regular file. */
export function startsWithJobRecord(path: string): boolean {
  let fd: number | undefined;
  try {
    if (!lstatSync(path).isFile()) return false;
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const head = Buffer.alloc(JOB_RECORD_START.length);
    const read = readSync(fd, head, 0, head.length, 0);
    return head.subarray(0, read).toString('utf8') === JOB_RECORD_START;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** How a journal starts, as the report's and the spool's checks see it: the job record a create writes first. */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournalRecords } from '../../../src/store/journal-file.js';
import { isJournalText, JOB_RECORD_START, startsWithJobRecord } from '../../../src/store/journal-head.js';
import { sandboxJob } from '../commands/sandbox-job.js';
import { tempDir } from '../core/job/fixture.js';

describe('a journal’s first bytes', () => {
  it('are those of the journal a create writes (its job record, `type` first)', async () => {
    const { journal } = await sandboxJob(['a.com'], 1);
    expect(startsWithJobRecord(journal)).toBe(true);
  });

  it('are a journal’s after a UTF-8 BOM too, as the journal reader reads through one', async () => {
    const { journal } = await sandboxJob(['a.com'], 1);
    const text = readFileSync(journal, 'utf8');
    writeFileSync(journal, `\uFEFF${text}`);
    const records: unknown[] = [];
    expect(readJournalRecords(journal, (record) => records.push(record))).toBe(true);
    expect(records[0]).toMatchObject({ type: 'job' });
    expect(startsWithJobRecord(journal)).toBe(true);
    expect(isJournalText(`\uFEFF${text}`)).toBe(true);
    // Only at the start, and only the UTF-8 one: a BOM anywhere else is no journal's.
    expect(isJournalText(` \uFEFF${text}`)).toBe(false);
    expect(isJournalText(`\uFEFF\uFEFF${text}`)).toBe(false);
  });

  it('are not those of another file, a file shorter than them, or no regular file (never opened)', () => {
    const dir = tempDir();
    const other = join(dir, 'events.spool');
    writeFileSync(other, '{"s":"k","at":1}\n');
    const short = join(dir, 'short');
    writeFileSync(short, JOB_RECORD_START.slice(0, 5));
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect([other, short, fifo, join(dir, 'missing'), dir].map(startsWithJobRecord)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

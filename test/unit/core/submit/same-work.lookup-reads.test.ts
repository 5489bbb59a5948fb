/**
 * Every create looks through its state directory's journals for a stopped job of the same work
 * (core/submit/same-work.ts), and a state directory keeps weeks of jobs (a pipeline creating every five minutes keeps
 * thousands). A journal of other work, or a finished one, is told by its first record and its last line, so the look
 * costs a bounded read of each journal whatever its size; only a stopped job of the same work is read through.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { itemList } from '../../../../src/core/items/chunks.js';
import { stoppedSameWork } from '../../../../src/core/submit/same-work.js';
import type { Job } from '../../../../src/core/submit/journal-records.js';
import { JobStore } from '../../../../src/store/job-files.js';
import { withFailingFs } from '../../store/failing-fs.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const ITEMS = ['a.com', 'b.com', 'c.com', 'd.com'];
/** This run's job: four items in chunks of one. */
const THIS: Job = {
  type: 'job',
  version: 1,
  id: 'j-thisrun00001',
  created_at: '2026-11-30T12:00:00.000Z',
  service: 'domain_check_availability',
  base_url: 'http://127.0.0.1:9/api/v1',
  account: 'acct',
  chunk_size: 1,
  format: null,
  column: null,
  validate: true,
  keep_duplicates: false,
  skip_invalid: false,
  inputs: [],
  items: ITEMS.length,
  items_sha256: 'same-items',
  chunks: ITEMS.length,
};

/** A journal of job `id` under the store: its job record (`work` changed from this run's), `records` lines after it. */
function journal(store: JobStore, id: string, work: Partial<Job>, records: object[]): void {
  const lines = [{ ...THIS, ...work, id, created_at: '2026-11-30T11:00:00.000Z' }, ...records];
  writeFileSync(join(store.dir, 'jobs', `${id}.jsonl`), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
}

/** About 2 MiB of records a run could have written: sends without their answers, which need the whole fold. */
const MANY_SENDS = Array.from({ length: 16_000 }, (_, i) => ({
  type: 'ignore',
  job: `j-padding${String(i).padStart(6, '0')}-${'x'.repeat(90)}`,
}));

it('reads a journal of other work, and a finished one of the same work, no further than its ends', () => {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-same-work-reads-'));
  dirs.push(dir);
  const store = new JobStore(join(dir, 'state'));
  mkdirSync(join(store.dir, 'jobs'), { recursive: true });
  journal(store, 'j-otherwork001', { items_sha256: 'other-items' }, MANY_SENDS);
  journal(store, 'j-finished0001', {}, [...MANY_SENDS, { type: 'done', tasks: 4, items: 4, cost: 4 }]);
  journal(store, 'j-stopped00001', {}, []);
  let asked = 0; // bytes asked of readSync: its length, else its whole buffer
  const length = (args: readonly unknown[]) =>
    typeof args[3] === 'number' ? args[3] : args[1] instanceof Uint8Array ? args[1].length : 0;
  const found = withFailingFs(
    (name, args) => {
      if (name === 'readSync') asked += length(args);
      return undefined;
    },
    () => stoppedSameWork(store, THIS, itemList(ITEMS)),
  );
  expect(found.map(({ id }) => id)).toEqual(['j-stopped00001']);
  // A glance is a piece of its start and one of its end (tens of KiB); read through, each journal is 2 MiB.
  expect(asked).toBeLessThan(256 * 1024);
});

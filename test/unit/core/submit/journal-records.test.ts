/** A journal's records rebuilt into its job: a big job (tens of thousands of chunks) with a damaged line still is one. */
import { describe, expect, it } from 'vitest';
import { rebuild } from '../../../../src/core/submit/journal-records.js';
import { T0 } from '../../clock.js';

/** 130,000 records name a chunk: past what a call can take as arguments (Math.max(...list) overflowed). */
const CHUNKS = 65_000;

describe('rebuild', () => {
  it('a damaged line in a 65,000-chunk journal: the chunk it may have sent is found, never a stack overflow', () => {
    const job = {
      ...{ type: 'job', version: 1, created_at: new Date(T0).toISOString(), service: 's', base_url: 'http://h/api/v1' },
      ...{ account: 'a', chunk_size: 1, format: null, column: null, validate: true, keep_duplicates: false },
      ...{ skip_invalid: false, inputs: [], items: CHUNKS + 1, items_sha256: 'y', chunks: CHUNKS + 1 },
    };
    const records: unknown[] = [job];
    for (let chunk = 1; chunk <= CHUNKS; chunk++) {
      const send = {
        type: 'send',
        chunk,
        first: chunk - 1,
        count: 1,
        sha256: 'z',
        sent_at: T0 + chunk,
        settle_after: T0 + chunk + 1,
      };
      records.push({ ...send, before: [], before_complete: true });
      records.push({ type: 'created', chunk, task: chunk, cost: 1, how: 'created' });
    }
    records.push({ type: '(unreadable)', line: records.length + 1 });
    const state = rebuild(records, '/j.jsonl');
    // The damaged last line may have been the send of chunk 65,001: it is in doubt, to settle after the latest send.
    expect(state?.chunks.get(CHUNKS + 1)?.send).toMatchObject({
      sent_at: T0,
      settle_after: T0 + CHUNKS + 1,
    });
    expect(state?.chunks.get(CHUNKS + 1)?.task).toBeUndefined();
  });
});

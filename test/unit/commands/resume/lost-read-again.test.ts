/**
 * `resume --wait` of a job whose ids the service gave to other tasks: a chunk found lost is named once in the error and
 * recorded once, though the wait read its task twice before it could end. The follow reads one request at a time, so
 * two reads never answer together; the same task is read again when the read of a later chunk's task fails: the next
 * round reads the page that lists the earlier ones again first, and their new status is a change the check sees again.
 */
import { expect, it } from 'vitest';
import { journalLines } from '../journal-lines.js';
import { writeJournal } from '../../core/job/fixture.js';
import { FakeClock, mockApi, runTaskctl, T0 } from '../run-in-process.js';

const S = 'domain_check_availability';
const iso = (ms: number) => new Date(ms).toISOString();

/** Task `id` of another client (the service's ids started again): one item, as each chunk of the job. */
function otherTask(id: number, done: boolean) {
  return {
    id,
    service: S,
    status: done ? 'completed' : 'processing',
    total_items: 1,
    completed_items: done ? 1 : 0,
    failed_items: 0,
    cost: 1,
    created_at: iso(T0 - 60_000),
    started_at: iso(T0 - 59_000),
    completed_at: done ? iso(T0) : null,
  };
}

/** Page 1 of the task list: tasks 1 and 2 only (the service never reached id 3 again). */
const page = (done: boolean) => ({
  success: true,
  data: [otherTask(1, done), otherTask(2, done)],
  meta: { current_page: 1, total_pages: 1, total_count: 2, per_page: 100 },
});

it('a chunk whose task is read again (a later read failed in between) is named once, and recorded lost once', async () => {
  // Three one-item chunks, tasks 1–3, whose tasks were created two hours ago: tasks 1 and 2 now are younger.
  const journal = writeJournal({ items: 3, chunkSize: 1, tasks: [1, 2, 3], createdAt: iso(T0 - 7_200_000) });
  const before = journalLines(journal).length;
  const api = mockApi();
  // Round 1: the page shows tasks 1 and 2 (chunks 1 and 2 found lost); task 3's read fails, all 4 attempts.
  api.reply('GET', /^\/tasks\?/, 200, page(false));
  api.reply('GET', '/tasks/3', 503, { success: false, error: { code: 'unavailable', message: 'down' } }, { times: 4 });
  // Round 2: the page again, tasks 1 and 2 completed since (a change: checked again), then task 3 is not found.
  api.reply('GET', /^\/tasks\?/, 200, page(true));
  api.reply('GET', '/tasks/3', 404, { success: false, error: { code: 'not_found', message: 'Task not found' } });
  const result = await runTaskctl(['resume', journal, '--wait'], { api, clock: new FakeClock() });
  expect(api.calls.filter((call) => call.startsWith('GET /tasks?'))).toHaveLength(2);
  expect(result.code, result.stderr).toBe(8);
  expect(result.stderr).toMatch(
    /^error: the service no longer has the tasks of chunks 1, 2 and 3 of job j-\w+ \(recorded in the job/m,
  );
  const recorded = journalLines(journal).slice(before);
  expect(recorded.map((record) => [record.type, record.chunk])).toEqual([
    ['lost', 1],
    ['lost', 2],
    ['lost', 3],
    ['done', undefined],
  ]);
});

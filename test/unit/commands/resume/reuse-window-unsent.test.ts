/**
 * A `--reuse-window` job with nothing sent (killed in its first lookup: its journal holds only the job record) whose
 * resume cannot search the job's window: exit 9 names the resume's ways on (a window the list covers, or
 * `--no-reuse`), never the create's "re-run without --reuse-window" (a resume keeps the job's window: that would loop).
 * Followed verbatim, each item is bought once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FakeClock, mockApi, replyServices, runTaskctl, type MockApi } from '../run-in-process.js';
import { replyBusyList, replyCreates } from '../busy-list.js';
import { keepJournalLines } from '../journal-lines.js';

const S = 'domain_check_availability';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'taskctl-resume-unsent-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function service(busy: boolean): MockApi {
  const api = mockApi();
  api.allowUnused();
  replyServices(api);
  api.reply('GET', '/balance', 200, { success: true, data: { balance: 1000, currency: 'coins' } }, { times: 20 });
  replyBusyList(api, { quietFirst: busy ? 0 : 10 });
  if (busy) replyCreates(api, S);
  // The tasks of the run that is then cut back: ids no later create is answered with.
  else replyCreates(api, S, 2, 9001);
  return api;
}

/** The command a hint names, as words (`taskctl resume j-… --reuse-window 31m`). */
function hinted(stderr: string, pattern: RegExp): string[] {
  const command = pattern.exec(stderr)?.[0];
  if (command === undefined) throw new Error(`no ${String(pattern)} in: ${stderr}`);
  return command.split(' ').slice(1);
}

it('its resume names `resume J --reuse-window Nm` or `resume J --no-reuse`; followed, each item is bought once', async () => {
  const clock = new FakeClock();
  // The job as its create recorded it, then cut back to its job record: killed before its first request.
  const made = await runTaskctl(['create', S, 'a.com', 'b.com', '--chunk-size', '1', '--reuse-window', '1h', '-y'], {
    api: service(false),
    clock,
    home,
  });
  expect(made.code, made.stderr).toBe(0);
  const job = /job (j-[0-9a-z]+)/.exec(made.stderr)?.[1] ?? '';
  keepJournalLines(join(home, 'state', 'jobs', `${job}.jsonl`), (record) => record.type === 'job');

  const api = service(true);
  const run = (argv: string[]) => runTaskctl(argv, { api, clock, home });
  const posts = () => api.calls.filter((call) => call.startsWith('POST')).length;
  const stopped = await run(['resume', job, '--yes']);
  expect(stopped.code, stopped.stderr).toBe(9);
  expect(stopped.stderr).toMatch(/--reuse-window 1h: the task list is too long to search/);
  expect(stopped.stderr).not.toMatch(/re-run|without --reuse-window/i);
  expect(stopped.stderr).toContain(`or without looking: taskctl resume ${job} --yes --no-reuse`);
  expect(posts()).toBe(0);

  const window = new RegExp(`taskctl resume ${job} --yes --reuse-window \\d+m\\b`);
  const followed = await run(hinted(stopped.stderr, window));
  expect(followed.code, followed.stderr).toBe(0);
  expect(posts()).toBe(2);
  // The other way, followed after: the job is finished, nothing is bought again.
  const other = await run(['resume', job, '--yes', '--no-reuse']);
  expect(other.code, other.stderr).toBe(0);
  expect(posts()).toBe(2);
});

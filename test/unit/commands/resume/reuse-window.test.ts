/**
 * A `--reuse-window` job stopped part-way by the walk's page bound (exit 9, "too long to search"): its `resume`, run
 * as the hint prints it, keeps the job's window and looks before it sends (never "no lookup, send": the items may have
 * a task further down the list), and when the list is still too long it stops the same way, with a resume that gets
 * past it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FakeClock, mockApi, replyServices, runTaskctl, type MockApi } from '../run-in-process.js';
import { replyBusyList, replyCreates } from '../busy-list.js';

const S = 'domain_check_availability';
const PAGES = 12;

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'taskctl-resume-reuse-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

/**
 * The account's list: empty at the first read (chunk 1's lookup), then the busy list, its last task of S for chunk 2's
 * item `b.com` (buried past the walk's bound).
 */
function replyList(api: MockApi): void {
  replyBusyList(api, { quietFirst: 1, service: (n) => (n === PAGES * 100 - 1 ? S : 'email_validation') });
}

/** The command a hint names, as words (`taskctl resume j-… --reuse-window 31m`). */
function hinted(stderr: string, pattern: RegExp): string[] {
  const command = pattern.exec(stderr)?.[0];
  if (command === undefined) throw new Error(`no ${String(pattern)} in: ${stderr}`);
  return command.split(' ').slice(1);
}

it("the printed resume keeps the job's --reuse-window: it looks before sending, and stops the same way", async () => {
  const api = mockApi();
  api.allowUnused();
  replyServices(api);
  api.reply('GET', '/balance', 200, { success: true, data: { balance: 1000, currency: 'coins' } }, { times: 20 });
  replyList(api);
  replyCreates(api, S);
  const clock = new FakeClock();
  const run = (argv: string[]) => runTaskctl(argv, { api, clock, home });
  const posts = () => api.calls.filter((call) => call.startsWith('POST')).length;

  const first = await run(['create', S, 'a.com', 'b.com', '--chunk-size', '1', '--reuse-window', '1h', '-y']);
  expect(first.code, first.stderr).toBe(9);
  expect(posts()).toBe(1);
  const job = /job (j-[0-9a-z]+)/.exec(first.stderr)?.[1] ?? '';

  // The job's resume as `taskctl jobs` names it: chunk 2's lookup is made again with the job's window, and nothing is
  // sent without it.
  const bare = await run(['resume', job]);
  expect(bare.code, bare.stderr).toBe(9);
  expect(bare.stderr).toMatch(/--reuse-window 1h: the task list is too long to search/);
  expect(posts()).toBe(1);

  // The hint as printed: a window the list covers; the lookup ends and chunk 2 is sent.
  // The create was given -y, so its hint carries --yes; the bare resume was not. Both name the same window.
  const window = new RegExp(`taskctl resume ${job}(?: --yes)? --reuse-window \\d+m\\b`);
  expect(hinted(first.stderr, window).filter((word) => word !== '--yes')).toEqual(hinted(bare.stderr, window));
  const followed = await run(hinted(bare.stderr, window));
  expect(followed.code, followed.stderr).toBe(0);
  expect(posts()).toBe(2);
  // And the way without looking.
  expect(bare.stderr).toContain(`or without looking: taskctl resume ${job} --no-reuse`);
});

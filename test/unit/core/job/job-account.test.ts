/**
 * A job read as another account than the one that created it names what differs and, when a profile on this machine
 * holds the job's account, that profile: the way back, not "put the inputs back".
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import {
  API_KEY,
  BASE_URL,
  mockApi,
  replyNoTasks,
  replyServices,
  runTaskctl,
  type MockApi,
} from '../../commands/run-in-process.js';
import { tempDir, writeJournal } from './fixture.js';

const ELSEWHERE = { TASKCTL_BASE_URL: 'https://elsewhere.test/api/v1', TASKCTL_API_KEY: 'sk_other_1234' };

/** A home whose config holds profile `p2`: the job's base URL and key. */
function homeWithProfile(): string {
  const home = tempDir();
  mkdirSync(join(home, 'config'), { mode: 0o700 });
  const profiles = { p2: { 'base-url': BASE_URL, 'api-key': API_KEY } };
  writeFileSync(join(home, 'config', 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
  return home;
}

describe('a job read as another account', () => {
  it('names the base URL that differs and the profile holding the job; that profile reads it', async () => {
    const home = homeWithProfile();
    const path = writeJournal({ items: 1, chunkSize: 1, tasks: [1] });
    const refused = await runTaskctl(['show', '--job', path], { env: ELSEWHERE, home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `belongs to another service: the base URL (https://elsewhere.test/api/v1; the job used ${BASE_URL}) differs`,
    );
    expect(refused.stderr.replace(/\n/g, ' ')).toContain(
      'The job was created as profile "p2": add --profile p2 with TASKCTL_BASE_URL and TASKCTL_API_KEY unset ' +
        '(they come before a profile).',
    );
    expect(refused.stderr).not.toMatch(/as they were/);
    const api = mockApi();
    const items = [{ target: 'a0.com', status: 'completed', data: { available: true }, error: null }];
    api.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { total_items: 1, items }) });
    const read = await runTaskctl(['--profile', 'p2', 'show', '--job', path, '-o', 'tsv'], {
      api,
      env: { TASKCTL_BASE_URL: undefined, TASKCTL_API_KEY: undefined },
      home,
    });
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toContain('a0.com');
  });

  it('another key on the same service, a journal without items digests: nothing can prove the account; the key is asked for', async () => {
    const path = writeJournal({ items: 1, chunkSize: 1, tasks: [1], apiKey: 'sk_rotated_0001' });
    const refused = await runTaskctl(['show', '--job', path], { api: mockApi() });
    expect(refused.code).toBe(2);
    expect(refused.stderr.replace(/\n/g, ' ')).toContain(
      'belongs to another account: the API key differs, and no task of the job can show that it is the same account',
    );
    expect(refused.stderr.replace(/\n/g, ' ')).toContain('Run it with the API key the job was created with');
  });

  it('resume as another service: names what differs and the resume command with the profile, nothing sent', async () => {
    const home = homeWithProfile();
    const path = writeJournal({ items: 1, chunkSize: 1, tasks: [1] });
    const api = mockApi();
    const refused = await runTaskctl(['resume', path], { api, env: ELSEWHERE, home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /job j-\w+ \(\S+\) belongs to another service: the base URL .* differs; nothing was sent/,
    );
    expect(refused.stderr.replace(/\n/g, ' ')).toMatch(
      /taskctl --profile p2 resume \S+job\S*\.jsonl with TASKCTL_BASE_URL/,
    );
    expect(refused.stderr).not.toMatch(/as they were/);
  });
});

const S = 'domain_check_availability';
/** The same service account's new key, the first one revoked. */
const ROTATED = { TASKCTL_API_KEY: 'sk_rotated_0002' };
const notFound = { success: false, error: { code: 'not_found', message: 'Task not found' } };
const done = (target: string) => [{ target, status: 'completed', data: { available: true }, error: null }];

/**
 * A job of one-item chunks made with the first key: chunks 1..`created` have tasks 1..`created` (`a.com`, `b.com`, …),
 * the next was refused (exit 6, nothing created), and one more follows.
 */
async function jobOfOldKey(home: string, created = 1): Promise<string> {
  const api = mockApi();
  replyServices(api);
  const targets = Array.from({ length: created + 2 }, (_, i) => `${String.fromCharCode(97 + i)}.com`);
  for (let id = 1; id <= created; id++) {
    replyNoTasks(api);
    api.reply('POST', '/tasks', 201, { success: true, data: task(id, { status: 'pending' }) });
  }
  replyNoTasks(api);
  const broke = { success: false, error: { code: 'insufficient_balance', message: 'Insufficient balance' } };
  api.reply('POST', '/tasks', 402, broke);
  const run = await runTaskctl(['create', S, ...targets, '--chunk-size', '1', '--yes', '-q'], { api, home });
  expect(run.code, run.stderr).toBe(6);
  const id = /taskctl resume (j-[0-9a-z]+)/.exec(run.stderr)?.[1];
  expect(id, run.stderr).toBeDefined();
  return id ?? '';
}

/** The chunks left sent under the new key: their tasks are `ids`. */
function replySend(api: MockApi, ids = [2, 3]): void {
  for (const id of ids) {
    replyNoTasks(api); // the prices are those the create cached
    api.reply('POST', '/tasks', 201, { success: true, data: task(id, { status: 'pending' }) });
  }
}

const aliases = (home: string) => join(home, 'state', 'accounts.json');

describe('a job after its API key was rotated (same base URL, a new key)', () => {
  it('show --job reads one of its tasks with the new key, and the match is remembered: resume and jobs need no read', async () => {
    const home = tempDir();
    const id = await jobOfOldKey(home);
    // Before any proof: not listed as this key's, but never hidden without a word (no request made).
    const env = { TASKCTL_BASE_URL: BASE_URL, ...ROTATED };
    const before = await runTaskctl(['jobs'], { env, home });
    expect(before.stdout).not.toContain(id);
    expect(before.stderr.replace(/\n/g, ' ')).toContain(
      '1 job of this base URL was created with another API key and is not shown (`taskctl jobs --all` lists it)',
    );
    const bare = await runTaskctl(['resume'], { env, home });
    expect(bare.code).toBe(0);
    expect(bare.stderr.replace(/\n/g, ' ')).toContain(
      '1 interrupted job of this base URL was created with another API key',
    );
    const shown = mockApi();
    shown.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { items: done('a.com') }) }, { times: 2 });
    const show = await runTaskctl(['show', '--job', id, '-o', 'tsv'], { api: shown, env: ROTATED, home });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('a.com');
    expect(show.stderr).toContain(
      `job ${id}: this API key was matched to the job's account through task 1, read with it`,
    );
    expect(shown.calls.filter((call) => call === 'GET /tasks/1')).toHaveLength(2);
    expect(shown.calls.every((call) => call.startsWith('GET'))).toBe(true);
    const kept = JSON.parse(readFileSync(aliases(home), 'utf8')) as { aliases: Array<{ task: number; job: string }> };
    expect(kept.aliases).toMatchObject([{ task: 1, job: id }]);

    // Remembered: the resume reads no task of the job, sends chunk 2, and says nothing of the account again.
    const resumed = mockApi();
    resumed.reply('GET', '/balance', 200, { success: true, data: { balance: 1000, currency: 'coins' } });
    replySend(resumed);
    const resume = await runTaskctl(['resume', id, '-q'], { api: resumed, env: ROTATED, home });
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stdout).toBe('2\n3\n');
    expect(resumed.calls).not.toContain('GET /tasks/1');
    expect(resume.stderr).not.toContain('this API key was matched');
    const listed = await runTaskctl(['jobs', '-q'], { env, home });
    expect(listed.stdout).toBe(`${id}\n`);
  });

  it('resume proves it itself, then sends the rest', async () => {
    const home = tempDir();
    const id = await jobOfOldKey(home);
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { items: done('a.com') }) });
    replySend(api);
    const resume = await runTaskctl(['resume', id], { api, env: ROTATED, home });
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stderr).toContain(`job ${id}: this API key was matched to the job's account through task 1`);
    expect(api.calls.indexOf('GET /tasks/1')).toBeLessThan(api.calls.indexOf('POST /tasks'));
    expect(existsSync(aliases(home))).toBe(true);
  });

  /** `create --journal FILE` of a.com and b.com in chunks of 1 with the old key: chunk 1 created, chunk 2 refused (402). */
  async function journalOfOldKey(home: string): Promise<string[]> {
    const journal = join(home, 'big.journal');
    const argv = ['create', S, 'a.com', 'b.com', '--yes', '-q', '--journal', journal];
    const old = mockApi();
    replyServices(old);
    replyNoTasks(old);
    old.reply('POST', '/tasks', 201, { success: true, data: task(1, { status: 'pending' }) });
    replyNoTasks(old);
    const broke = { success: false, error: { code: 'insufficient_balance', message: 'Insufficient balance' } };
    old.reply('POST', '/tasks', 402, broke);
    expect((await runTaskctl([...argv, '--chunk-size', '1'], { api: old, home })).code).toBe(6);
    return argv;
  }

  it('the same create --journal FILE run again with the new key proves it too, and continues the job', async () => {
    const home = tempDir();
    const argv = [...(await journalOfOldKey(home)), '--chunk-size', '1'];
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { items: done('a.com') }) });
    replySend(api, [2]);
    const again = await runTaskctl(argv, { api, env: ROTATED, home });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('2\n');
    expect(existsSync(aliases(home))).toBe(true);
  });

  it('the same create --journal FILE with another key and another --chunk-size: the account is judged first, in the one wording', async () => {
    const home = tempDir();
    const argv = await journalOfOldKey(home);
    const api = mockApi();
    api.reply('GET', '/tasks/1', 404, notFound);
    const refused = await runTaskctl([...argv, '--chunk-size', '2'], { api, env: ROTATED, home });
    expect(refused.code).toBe(2);
    expect(refused.stderr.replace(/\n/g, ' ')).toMatch(
      /job j-\w+ \(\S+big\.journal\) belongs to another account: the API key differs, and the job's task 1 is not found with it .*; nothing was sent/,
    );
    expect(api.calls).toEqual(['GET /tasks/1']);
  });

  it('a first task gone (404) is not the last word: the next one read proves it', async () => {
    const home = tempDir();
    const id = await jobOfOldKey(home, 2);
    const api = mockApi();
    api.reply('GET', '/tasks/1', 404, notFound);
    api.reply('GET', '/tasks/2', 200, { success: true, data: task(2, { items: done('b.com') }) });
    replySend(api, [3, 4]);
    const resume = await runTaskctl(['resume', id, '-q'], { api, env: ROTATED, home });
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stdout).toBe('3\n4\n');
    expect(existsSync(aliases(home))).toBe(true);
  });

  it.each([
    ['resume', (id: string) => ['resume', id], /job j-\w+ belongs to another account: .*; nothing was sent/],
    // A command that only reads says nothing of sending.
    [
      'show --job',
      (id: string) => ['show', '--job', id],
      /job j-\w+ belongs to another account: (?!.*nothing was sent)/,
    ],
  ])(
    '%s: the task not found with the new key is another account: refused, nothing sent or remembered',
    async (_, argv, head) => {
      const home = tempDir();
      const id = await jobOfOldKey(home);
      const api = mockApi();
      api.reply('GET', '/tasks/1', 404, notFound);
      const refused = await runTaskctl(argv(id), { api, env: ROTATED, home });
      expect(refused.code).toBe(2);
      const text = refused.stderr.replace(/\n/g, ' ');
      expect(text).toMatch(head);
      expect(text).toContain("the API key differs, and the job's task 1 is not found with it");
      expect(text).toContain('Run it with the API key the job was created with');
      expect(api.calls).toEqual(['GET /tasks/1']);
      expect(existsSync(aliases(home))).toBe(false);
    },
  );

  it('a task of that id holding other items (another account numbering its own tasks) proves nothing: refused', async () => {
    const home = tempDir();
    const id = await jobOfOldKey(home);
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { items: done('z.com') }) });
    const refused = await runTaskctl(['resume', id], { api, env: ROTATED, home });
    expect(refused.code).toBe(2);
    expect(refused.stderr.replace(/\n/g, ' ')).toContain(
      "the API key differs, and task 1 read with it is not the job's (its items are not the ones the chunk sent); nothing was sent",
    );
    expect(api.calls).toEqual(['GET /tasks/1']);
    expect(existsSync(aliases(home))).toBe(false);
  });

  const internal = { success: false, error: { code: 'internal_error', message: 'boom' } };
  const unauthorized = { success: false, error: { code: 'unauthorized', message: 'Invalid API key' } };
  it.each([
    ['resume', 503, 8, internal],
    ['wait --job', 503, 8, internal],
    ['resume', 401, 4, unauthorized],
  ])('%s: a read answered %i proves nothing (exit %i): no guess, nothing sent', async (command, status, code, body) => {
    const home = tempDir();
    const id = await jobOfOldKey(home);
    const api = mockApi();
    api.allowUnused();
    api.reply('GET', '/tasks/1', status, body, { times: 20 });
    const argv = command === 'resume' ? ['resume', id] : ['wait', '--job', id];
    const failed = await runTaskctl(argv, { api, env: ROTATED, home });
    expect(failed.code).toBe(code);
    expect(failed.stderr).toContain(
      `cannot tell whether this API key is the account of job ${id} (chunk 1's task read`,
    );
    expect(failed.stderr).not.toMatch(/another account|belongs to/);
    expect(api.calls.every((call) => call === 'GET /tasks/1')).toBe(true);
    expect(existsSync(aliases(home))).toBe(false);
  });
});

it('a job with no task yet is not continued under another key: nothing proves the account, and nothing of it was created', async () => {
  const home = tempDir();
  const api = mockApi();
  replyServices(api);
  replyNoTasks(api);
  const broke = { success: false, error: { code: 'insufficient_balance', message: 'Insufficient balance' } };
  api.reply('POST', '/tasks', 402, broke);
  // A journal of the user's own (--journal): kept as it is when nothing of the job was created, where the state
  // directory's would be removed (docs/behaviour.md#jobs).
  const journal = join(home, 'job.jsonl');
  const argv = ['create', S, 'a.com', 'b.com', '--chunk-size', '1', '--yes', '--journal', journal];
  const created = await runTaskctl(argv, { api, home });
  expect(created.code, created.stderr).toBe(6);
  const refused = await runTaskctl(['resume', journal], { api: mockApi(), env: ROTATED, home });
  expect(refused.code).toBe(2);
  const text = refused.stderr.replace(/\n/g, ' ');
  expect(text).toContain('the job has no task yet that could show that it is the same account; nothing was sent');
  expect(text).toContain('Nothing of it was created: run the create again with this key, as a new job');
});

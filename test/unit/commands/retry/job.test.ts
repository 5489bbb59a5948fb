/**
 * `wait --job` and `retry --job`: every task of a journaled job; an unfinished job is exit 2 pointing to `resume
 * --wait`; retry re-runs exactly the items that did not complete, `--error` choosing among them (also on ids), and
 * `--journal NEW` journals the retry as a new job with its items in NEW.input.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { JournalFile } from '../../../../src/store/journal-file.js';
import { SERVICE, writeJournal } from '../../core/job/fixture.js';
import { sandboxJob } from '../sandbox-job.js';
import { mockApi, replyNoTasks, replyServices, runTaskctl } from '../run-in-process.js';

const ITEMS = ['a.com', 'fail-b.com', 'c.com', 'fail-d.com', 'e.com', 'fail-f.com', 'g.com'];

describe('wait --job', () => {
  it('waits for every task of the job, as wait does (exit 11: some items failed)', async () => {
    const { run, journal } = await sandboxJob(ITEMS, 3);
    const result = await run(['wait', '--job', journal, '-o', 'tsv']);
    expect(result.code, result.stderr).toBe(11);
    expect(result.stdout.trim().split('\n')).toHaveLength(3);
    const terminal = await run(['wait', '--job', journal], { stdoutTTY: true, columns: 100 });
    expect(terminal.stderr).toContain(`See the items: taskctl show --job ${journal}`);
  });

  it('an unfinished job is exit 2 pointing to resume --wait; --results, --journal and ids are exit 2', async () => {
    const path = writeJournal({ items: 2, chunkSize: 1, tasks: [1, undefined] });
    const unfinished = await runTaskctl(['wait', '--job', path], { api: mockApi() });
    expect(unfinished.code).toBe(2);
    expect(unfinished.stderr).toMatch(/incomplete: 1 chunk of 2 \(2\) has no task recorded yet/);
    expect(unfinished.stderr).toContain(`taskctl resume ${path} --wait`);
    const results = await runTaskctl(['wait', '--job', path, '--results'], { api: mockApi() });
    expect(results.code).toBe(2);
    expect(results.stderr).toMatch(/--results is not written for a whole job/);
    const journal = await runTaskctl(['wait', '--journal', path], { api: mockApi() });
    expect(journal.code).toBe(2);
    expect(journal.stderr).toContain(`taskctl wait --job ${path}`);
    const both = await runTaskctl(['wait', '7', '--job', path], { api: mockApi() });
    expect(both.code).toBe(2);
  });
});

describe('retry --job', () => {
  it("re-runs exactly the failed items, in chunk order, in chunks of the job's size", async () => {
    const { run, journal, targets } = await sandboxJob(ITEMS, 3);
    const result = await run(['retry', '--job', journal, '-y', '-q']);
    expect(result.code, result.stderr).toBe(0);
    const ids = result.stdout.trim().split('\n');
    expect(ids).toHaveLength(1);
    expect(await targets(ids[0] ?? '')).toEqual(['fail-b.com', 'fail-d.com', 'fail-f.com']);
    const small = await run(['retry', '--job', journal, '-y', '-q', '--chunk-size', '2', '--no-reuse']);
    expect(small.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('--allow-item-failures: a chunk whose every item failed is retried, never "reused" as its own task', async () => {
    const { run, journal, ids } = await sandboxJob(['fail-a.com', 'fail-b.com', 'c.com', 'fail-d.com'], 2);
    const result = await run(['retry', '--job', journal, '--allow-item-failures', '-y', '-q']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('reused');
    const retried = result.stdout.trim().split('\n').map(Number);
    expect(retried).toHaveLength(2);
    for (const id of retried) expect(ids).not.toContain(id);
  });

  it('--journal NEW: the targets in NEW.input, the new journal records its digest, the source and the filters', async () => {
    const { run, dir, journal, targets } = await sandboxJob(ITEMS, 3);
    const next = join(dir, 'retry.jsonl');
    const result = await run(['retry', '--job', journal, '--journal', next, '--error', 'simulated', '-y', '-q']);
    expect(result.code, result.stderr).toBe(0);
    const input = readFileSync(`${next}.input`, 'utf8');
    expect(input).toBe('"fail-b.com"\n"fail-d.com"\n"fail-f.com"\n');
    const [job] = readFileSync(next, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(job).toMatchObject({
      type: 'job',
      chunk_size: 3,
      retry_of: { journal, error: ['simulated'] },
      inputs: [{ path: `${next}.input`, format: 'ndjson', sha256: createHash('sha256').update(input).digest('hex') }],
    });
    expect(await targets(result.stdout.trim())).toEqual(['fail-b.com', 'fail-d.com', 'fail-f.com']);
    const resumed = await run(['resume', next]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/task \d+ for 3 items/);
    // NEW holds that job now: another retry into it is refused, its input kept.
    const again = await run(['retry', '--job', journal, '--journal', next, '--no-reuse', '-y', '-q']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${next} already holds a job`);
    // That job is finished: another retry needs a path of its own.
    expect(again.stderr).toContain('That job is finished; give this retry a new --journal path');
    expect(readFileSync(`${next}.input`, 'utf8')).toBe(input);
  });

  it('--journal NEW holding an unfinished job: the one next step continues it, never a new path that sends its items again', async () => {
    const { run, journal } = await sandboxJob(ITEMS, 3);
    const next = writeJournal({ items: 6, chunkSize: 3, tasks: [1], done: false });
    const again = await run(['retry', '--job', journal, '--journal', next, '--no-reuse', '-y', '-q']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${next} already holds a job`);
    expect(again.stderr).toContain(`Continue it: taskctl resume ${next}`);
    expect(again.stderr).not.toContain('new --journal path');
  });

  // One job for both: the retry into a held NEW is refused before it sends or records anything.
  it('--journal NEW that another run holds (a create still copying its stdin there): exit 2, NEW.input untouched; --journal NEW refused by --max-cost: the same retry re-run with a higher limit goes on in NEW', async () => {
    const { run, dir, journal, targets } = await sandboxJob(ITEMS, 3);
    const busy = join(dir, 'busy.jsonl');
    // What that create holds while it reads: the journal's locks, no record yet, its copy of stdin growing.
    const held = JournalFile.open(busy, () => undefined);
    try {
      const copy = Buffer.from('first.com\nsecond\u00e9.com\n');
      writeFileSync(`${busy}.input`, copy);
      const result = await run(['retry', '--job', journal, '--journal', busy, '-y', '-q']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/in use by another taskctl/);
      expect(readFileSync(`${busy}.input`)).toEqual(copy);
    } finally {
      held.close();
    }
    const next = join(dir, 'retry.jsonl');
    const refused = await run(['retry', '--job', journal, '--journal', next, '--max-cost', '1', '-q']);
    expect(refused.code, refused.stderr).toBe(6);
    // A resume of it cannot send fewer items: it says what a resume can do.
    const resumed = await run(['resume', next, '--max-cost', '1', '-q']);
    expect(resumed.code, resumed.stderr).toBe(6);
    expect(resumed.stderr).not.toMatch(/fewer items/);
    expect(resumed.stderr).toMatch(/nothing more was sent\nContinue it with: taskctl resume j-\w+ --max-cost 3\n/);
    const again = await run(['retry', '--job', journal, '--journal', next, '--max-cost', '50', '-q']);
    expect(again.code, again.stderr).toBe(0);
    expect(await targets(again.stdout.trim())).toEqual(['fail-b.com', 'fail-d.com', 'fail-f.com']);
    // `retry ID --journal R` alike.
    const ids = await run(['retry', again.stdout.trim(), '--journal', join(dir, 'r2.jsonl'), '--max-cost', '1', '-q']);
    expect(ids.code, ids.stderr).toBe(6);
    const idsAgain = await run(['retry', again.stdout.trim(), '--journal', join(dir, 'r2.jsonl'), '-y', '-q']);
    expect(idsAgain.code, idsAgain.stderr).toBe(0);
  });

  it('--journal naming the --job file, an unfinished job, and a task still running are exit 2', async () => {
    const path = writeJournal({ items: 2, chunkSize: 1, tasks: [1, 2] });
    const same = await runTaskctl(['retry', '--job', path, '--journal', path], { api: mockApi() });
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/is the --job file/);
    const unfinished = writeJournal({ items: 2, chunkSize: 1, tasks: [1] });
    const open = await runTaskctl(['retry', '--job', unfinished], { api: mockApi() });
    expect(open.code).toBe(2);
    expect(open.stderr).toContain(`taskctl resume ${unfinished} --wait`);
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, { success: true, data: task(1) });
    api.reply('GET', '/tasks/2', 200, { success: true, data: task(2, { status: 'processing' }) });
    const running = await runTaskctl(['retry', '--job', path], { api });
    expect(running.code).toBe(2);
    expect(running.stderr).toMatch(/task 2 \(chunk 2 of .*\) is still processing/);
  });
});

describe('retry --job with items the server does not list', () => {
  it('a failed task listing none of its items: exit 8, nothing can be retried; a completed one: nothing to retry', async () => {
    const path = writeJournal({ items: 4, chunkSize: 2, tasks: [1, 2] });
    const api = mockApi();
    const failedTask = {
      status: 'failed',
      total_items: 2,
      items: [],
      error_message: 'lost',
      failed_at: '2025-01-15T12:00:01Z',
    };
    const listsNone = { total_items: 2, completed_items: 2, failed_items: 0 };
    api.reply('GET', '/tasks/1', 200, { success: true, data: task(1, listsNone) });
    api.reply('GET', '/tasks/2', 200, { success: true, data: task(2, failedTask) });
    const result = await runTaskctl(['retry', '--job', path], { api });
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(/task 2 of .* reports items that did not complete but does not list them/);
    const done = mockApi();
    done.reply('GET', '/tasks/1', 200, { success: true, data: task(1, listsNone) });
    done.reply('GET', '/tasks/2', 200, { success: true, data: task(2, listsNone) });
    const nothing = await runTaskctl(['retry', '--job', path], { api: done });
    expect(nothing.code, nothing.stderr).toBe(0);
    expect(nothing.stderr).toMatch(/nothing to retry: every item of .* completed/);
    // Priced with -q alone: 0, the number a script reads.
    const priced = mockApi();
    priced.reply('GET', '/tasks/1', 200, { success: true, data: task(1, listsNone) });
    priced.reply('GET', '/tasks/2', 200, { success: true, data: task(2, listsNone) });
    const cost = await runTaskctl(['retry', '--job', path, '--dry-run', '-q'], { api: priced });
    expect(cost).toMatchObject({ code: 0, stdout: '0\n' });
  });
});

describe('--error', () => {
  const failed = (target: string, error: string | null) => ({ target, status: 'failed', data: null, error });
  const items = [
    failed('a.com', 'Timeout after 30s'),
    failed('b.com', 'invalid domain'),
    failed('c.com', 'Upstream TIMEOUT'),
    failed('d.com', 'rate limited'),
    failed('e.com', null),
    { target: 'f.com', status: 'completed', data: { available: true }, error: null },
  ];
  const failedTask = task(42, {
    status: 'failed',
    total_items: 6,
    items,
    error_message: 'worker lost',
    failed_at: '2025-01-15T12:00:01Z',
  });

  it('retry <id> --error: case-insensitive substrings, ORed; an item without an error is judged by its task', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/42', 200, { success: true, data: failedTask });
    replyServices(api);
    replyNoTasks(api);
    const bodies: unknown[] = [];
    api.reply(
      'POST',
      '/tasks',
      201,
      { success: true, data: task(43, { status: 'pending', total_items: 3 }) },
      { bodies },
    );
    const result = await runTaskctl(['retry', '42', '--error', 'timeout', '--error', 'WORKER', '-y', '--no-reuse'], {
      api,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(bodies).toEqual([{ service: SERVICE, items: ['a.com', 'c.com', 'e.com'] }]);
  });

  it('retry <id> whose create is answered with the retried task itself: reconciled, exit 9, never that task', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/42', 200, { success: true, data: failedTask });
    replyServices(api);
    api.reply(
      'GET',
      /^\/tasks\?/,
      200,
      { success: true, data: [], meta: { current_page: 1, total_pages: 1, total_count: 0, per_page: 100 } },
      { times: 20 },
    );
    api.reply('POST', '/tasks', 201, { success: true, data: failedTask });
    const result = await runTaskctl(['retry', '42', '--error', 'timeout', '--error', 'WORKER', '-y', '-q'], { api });
    expect(result.code, result.stderr).toBe(9);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      `the service answered the create with task 42 of ${SERVICE} for 6 items, not this request's 3 items`,
    );
  });

  it('retry <id> --error matching nothing: nothing to retry, exit 0', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/42', 200, { success: true, data: failedTask });
    const result = await runTaskctl(['retry', '42', '--error', 'no such thing', '--error', 'nor this'], { api });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe(
      'nothing to retry: of the items of task 42 that did not complete, none has an error containing "no such thing" or "nor this"\n',
    );
  });

  it('show <id> --error matching nothing says so in the same words', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/42', 200, { success: true, data: failedTask });
    const result = await runTaskctl(['show', '42', '--error', 'no such thing'], { api, stdoutTTY: true });
    expect(result.code, result.stderr).toBe(0);
    expect(result.output).toContain('of the items that did not complete, none has an error containing "no such thing"');
  });

  it('show <id> --error previews the same items', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/42', 200, { success: true, data: failedTask });
    const result = await runTaskctl(
      ['show', '42', '--error', 'timeout', '--error', 'WORKER', '-o', 'tsv', '--columns', 'target'],
      {
        api,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('a.com\nc.com\ne.com\n');
  });
});

/**
 * `create --journal FILE` and `taskctl resume FILE` against a real sandbox, in process (virtual time: the wait
 * before an in-flight chunk is settled passes at once). Kills at random instants are the campaign's
 * (test/campaign/journal.ts); here each state a kill can leave is built by hand and resumed.
 */
import { existsSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountKey } from '../../src/store/cache.js';
import { CreateLedger } from '../../src/store/ledger.js';
import { FakeClock } from '../clock.js';
import { startWorld, type E2EWorld } from './spawn-cli.js';
import { keepJournalLines } from '../unit/commands/journal-lines.js';

interface SandboxTask {
  id: number;
  service: string;
  total_items: number;
  items?: Array<{ target: string }>;
}

let world: E2EWorld;
/** Homes of worlds replaced mid-test (their journal stays in use), removed at the end. */
const replaced: E2EWorld[] = [];
beforeEach(async () => {
  world = await startWorld({ itemMs: 0 });
});
afterEach(async () => {
  await world.close();
  for (const old of replaced.splice(0)) old.home.cleanup();
});

const service = 'domain_check_availability';
const path = (name: string) => join(world.home.dir, name);
const tasks = async () =>
  (await world.admin<{ tasks: SandboxTask[] }>('GET', '/__sandbox/state')).tasks.filter((t) => t.service === service);
const records = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

function domains(name: string, count: number, prefix = 'd'): string {
  const file = path(name);
  writeFileSync(file, Array.from({ length: count }, (_, i) => `${prefix}${i}.example.com`).join('\n') + '\n');
  return file;
}

/** Every item of `file` in exactly one task of the sandbox, and nothing else. */
async function itemsOnce(count: number, prefix = 'd'): Promise<void> {
  const seen = new Map<string, number>();
  for (const task of await tasks()) {
    const full = JSON.parse((await world.inProcess(['show', String(task.id), '-o', 'json'])).stdout) as SandboxTask;
    for (const item of full.items ?? []) seen.set(item.target, (seen.get(item.target) ?? 0) + 1);
  }
  const expected = Array.from({ length: count }, (_, i) => `${prefix}${i}.example.com`);
  expect([...seen.keys()].sort()).toEqual(expected.sort());
  expect([...seen.values()].every((n) => n === 1)).toBe(true);
}

describe('create --journal', () => {
  it('records the job and every chunk (fsynced JSON lines, no items), and a finished job is not started again', async () => {
    const input = domains('in.txt', 25);
    const journal = path('job.jsonl');
    const first = await world.inProcess([
      'create',
      service,
      '-f',
      input,
      '--chunk-size',
      '10',
      '--journal',
      journal,
      '-q',
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim().split('\n')).toHaveLength(3);
    const lines = records(journal);
    expect(lines[0]).toMatchObject({ type: 'job', service, chunk_size: 10, items: 25, chunks: 3 });
    expect(lines[0]?.inputs).toEqual([
      expect.objectContaining({ kind: 'file', path: input, size: expect.any(Number) }),
    ]);
    expect(lines.map((r) => r.type)).toEqual(['job', 'send', 'created', 'send', 'created', 'send', 'created', 'done']);
    expect(readFileSync(journal, 'utf8')).not.toMatch(/example\.com/);

    const again = await world.inProcess(['create', service, '-f', input, '--chunk-size', '10', '--journal', journal]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/the job in .* is finished/);
    const summary = await world.inProcess(['resume', journal]);
    expect(summary.code).toBe(0);
    expect(summary.stderr).toMatch(/3 tasks for 25 items, 25 coins/);
    expect(await tasks()).toHaveLength(3);
  });

  it('a journal left empty by a create killed before its job record: resume says nothing was sent; the create starts it', async () => {
    const input = domains('early.txt', 4, 'e');
    const journal = path('early.jsonl');
    writeFileSync(journal, ''); // what a kill during loading, reading or pricing leaves
    const resumed = await world.inProcess(['resume', journal]);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/holds no job \(a create stopped before recording one sent nothing\)/);
    expect(resumed.stderr).toMatch(/Nothing of it was sent: run the create again/);
    const created = await world.inProcess(['create', service, '-f', input, '--chunk-size', '2', '--journal', journal]);
    expect(created.code, created.stderr).toBe(0);
    expect(await tasks()).toHaveLength(2);
  });

  it('refuses a journal of another job (exit 2 naming what differs), a changed input, and a journal in use', async () => {
    const input = domains('in.txt', 12);
    const journal = path('job.jsonl');
    // A job stopped after its first chunk (as a kill would leave it).
    const started = await world.inProcess(['create', service, '-f', input, '--chunk-size', '5', '--journal', journal]);
    expect(started.code).toBe(0);
    expect(started.stderr).toMatch(/chunk 3 of 3: 3 of 3 tasks created; 12 items and 12 coins by this run/);
    expect(started.stderr).toMatch(/job j-[0-9a-z]+ \(\S*job\.jsonl\): 3 tasks for 12 items, 12 coins/);
    const kept = records(journal).slice(0, 3);
    writeFileSync(journal, kept.map((r) => JSON.stringify(r)).join('\n') + '\n');

    const other = await world.inProcess(['create', service, '-f', input, '--chunk-size', '6', '--journal', journal]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/belongs to another job \(j-[0-9a-z]+\): --chunk-size differs/);
    const noValidate = await world.inProcess([
      'create',
      service,
      '-f',
      input,
      '--chunk-size',
      '5',
      '--no-validate',
      '--journal',
      journal,
    ]);
    expect(noValidate.stderr).toMatch(/--no-validate differs/);

    // A job is locked by its id, in the state directory.
    const lock = join(world.home.env.TASKCTL_STATE_DIR, 'locks', `${String(kept[0]?.id)}.lock`);
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now(), token: 'x' }));
    const locked = await world.inProcess(['resume', journal]);
    expect(locked.code).toBe(2);
    expect(locked.stderr).toMatch(/in use by another taskctl/);
    unlinkSync(lock);

    writeFileSync(input, readFileSync(input, 'utf8') + 'extra.example.com\n');
    const changed = await world.inProcess(['resume', journal]);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toMatch(/in\.txt \(\d+ bytes now, \d+ when the job started\)/);
    expect(await tasks()).toHaveLength(3); // the first create's three tasks; nothing sent by the refused runs
  });

  it('copies stdin beside the journal and resumes from the copy; chunks with a task are never sent again', async () => {
    const journal = path('job.jsonl');
    const input = Array.from({ length: 30 }, (_, i) => `s${i}.example.com`).join('\n');
    const done = await world.inProcess(['create', service, '--chunk-size', '7', '--journal', journal, '-q'], {
      stdin: input,
    });
    expect(done.code, done.stderr).toBe(0);
    expect(readFileSync(`${journal}.input`, 'utf8')).toBe(input);
    // Cut the journal back to two created chunks, as if killed then (the cache as that run left it); resume sends
    // chunks 3 to 5 only.
    let cut = false;
    keepJournalLines(
      journal,
      (r) => !cut && ((cut = r.type === 'created' && r.chunk === 2), true),
      undefined,
      world.home.env.TASKCTL_CACHE_DIR,
    );
    const before = (await tasks()).length;
    const resumed = await world.inProcess(['resume', journal, '-q']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout.trim().split('\n')).toHaveLength(3);
    expect((await tasks()).length).toBe(before + 3);
  });
});

describe('resume: a chunk caught in flight', () => {
  /** Creates a task as another client (or the interrupted POST itself) would: straight to the API, past the ledger. */
  async function rawCreate(items: string[]): Promise<{ id: number; created_at: string }> {
    const response = await fetch(`${world.sandbox.url}/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': world.sandbox.apiKey },
      body: JSON.stringify({ service, items }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { data: { id: number; created_at: string } }).data;
  }

  /**
   * A job whose last record is `send` for chunk 2: killed between the journal write and the POST's answer. `landed`
   * tasks with chunk 2's items are then created straight through the API (the interrupted POST, or another client's);
   * `entry` leaves the ledger entry the killed run wrote before its POST (another run's, still sending, with the job).
   * `sentAfter` moves the recorded send that many ms past the landed tasks (they then existed before it).
   */
  async function stoppedInFlight(
    landed: number,
    options: { entry?: boolean; sentAfter?: number; clock?: FakeClock } = {},
  ): Promise<{ journal: string; chunk2: string[]; landedIds: number[]; id: string }> {
    const input = domains('in.txt', 9, 'f');
    const journal = path('job.jsonl');
    const run = await world.inProcess(['create', service, '-f', input, '--chunk-size', '3', '--journal', journal]);
    expect(run.code, run.stderr).toBe(0);
    const lines = records(journal);
    const send2 = lines.findIndex((r) => r.type === 'send' && r.chunk === 2);
    writeFileSync(
      journal,
      lines
        .slice(0, send2 + 1)
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    );
    // The cut stands for a run killed with chunk 2 in flight, which leaves its record of the job's place no further
    // than its journal: the full run's record goes, or the journal would be one put back from an earlier copy.
    rmSync(join(world.home.env.TASKCTL_CACHE_DIR, 'places'), { recursive: true, force: true });
    // The sandbox keeps what the first run made; start the account over with only chunk 1's task (plus copies).
    const chunk2 = ['f3.example.com', 'f4.example.com', 'f5.example.com'];
    await world.sandbox.close();
    replaced.push(world);
    world = await startWorld({ itemMs: 0, ...(options.clock && { clock: options.clock }) });
    const first = await world.inProcess(
      ['create', service, 'f0.example.com', 'f1.example.com', 'f2.example.com', '-q'],
      { ...(options.clock && { clock: options.clock }) },
    );
    const firstId = Number(first.stdout.trim());
    const landedIds: number[] = [];
    let lastCreated = 0;
    for (let i = 0; i < landed; i++) {
      const task = await rawCreate(chunk2);
      landedIds.push(task.id);
      lastCreated = Date.parse(task.created_at);
    }
    const account = accountKey(world.sandbox.url, world.sandbox.apiKey);
    const rewritten = records(journal).map((r) => {
      if (r.type === 'job') return { ...r, base_url: world.sandbox.url, account };
      if (r.type === 'created' && r.chunk === 1) return { ...r, task: firstId };
      if (r.type === 'send') {
        const sentAt = options.sentAfter === undefined ? Number(r.sent_at) : lastCreated + options.sentAfter;
        return { ...r, before: [], sent_at: sentAt, settle_after: sentAt + 3000 };
      }
      return r;
    });
    writeFileSync(journal, rewritten.map((r) => JSON.stringify(r)).join('\n') + '\n');
    if (options.entry) {
      const send = rewritten.find((r) => r.type === 'send') as { sent_at: number };
      new CreateLedger(world.home.env.TASKCTL_CACHE_DIR, () => Date.now(), 'killed-run').begin({
        account,
        service,
        items: chunk2,
        liveForMs: 600_000,
        // Ledger entries name the job by its id, never by a path.
        job: { journal: String(rewritten[0]?.id), chunk: 2 },
        sentAt: send.sent_at,
      });
    }
    return { journal, chunk2, landedIds, id: String(rewritten[0]?.id) };
  }

  const ledgerEntries = () =>
    (
      JSON.parse(readFileSync(join(world.home.env.TASKCTL_CACHE_DIR, 'creates.json'), 'utf8')) as {
        entries: Array<{ run: string; state: string; taskId?: number; job?: { journal: string; chunk: number } }>;
      }
    ).entries;

  it('adopts the one identical task the interrupted POST created: nothing twice, nothing missing', async () => {
    const { journal } = await stoppedInFlight(1);
    const resumed = await world.inProcess(['resume', journal]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/chunk 2: task \d+ was created by the interrupted request/);
    expect(records(journal).find((r) => r.type === 'reconciled')).toMatchObject({ chunk: 2, by: 'scan' });
    // Each chunk counted once: the one done before, the one settled, the one sent now.
    expect(resumed.stderr).toMatch(
      /job j-[0-9a-z]+ \(\S*job\.jsonl\): 3 tasks for 9 items, 9 coins \(task \d+ recovered; 1 by this run\)/,
    );
    await itemsOnce(9, 'f');
  });

  it("takes over the killed run's ledger entry for the chunk: that run's possible task becomes its own", async () => {
    const { journal, landedIds, id } = await stoppedInFlight(1, { entry: true });
    const landed = landedIds[0];
    const resumed = await world.inProcess(['resume', journal]);
    // Without the takeover the killed run's entry (still sending, its window open) contests the task: exit 9.
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`chunk 2: task ${landed} was created by the interrupted request`));
    const entry = ledgerEntries().find((e) => e.job?.chunk === 2);
    expect(entry).toMatchObject({ state: 'created', taskId: landed, job: { journal: id, chunk: 2 } });
    expect(entry?.run).not.toBe('killed-run');
    await itemsOnce(9, 'f');
  });

  it('a chunk proven not created is sent again without its old entry: a lost answer to the resend is recovered', async () => {
    const clock = new FakeClock(Date.now());
    const { journal, id } = await stoppedInFlight(0, { entry: true, clock });
    await world.admin('POST', '/__sandbox/faults', {
      method: 'POST',
      path: '/api/v1/tasks',
      kind: 'reset-after',
      count: 1,
    });
    const resumed = await world.inProcess(['resume', journal], { clock });
    // With the killed run's entry left behind, the resend's own task would be contested by it (exit 9, every resume).
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(
      /chunk 2: no task of the interrupted request found by \S+, past its horizon; sending it \(a request the service held longer could still land/,
    );
    expect(resumed.stderr).toMatch(/recovered: task \d+ was created by this request/);
    expect(ledgerEntries().filter((e) => e.job?.chunk === 2)).toEqual([
      expect.objectContaining({ state: 'created', job: { journal: id, chunk: 2 } }),
    ]);
    await itemsOnce(9, 'f');
  });

  it('the window rule: an identical task made before the chunk was sent is not its task; the chunk is sent again', async () => {
    // The sandbox on the command's clock: the wait before the check passes for both (no drift between their clocks).
    const clock = new FakeClock(Date.now());
    const { journal, landedIds } = await stoppedInFlight(1, { sentAfter: 5000, clock });
    const resumed = await world.inProcess(['resume', journal], { clock });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(
      /chunk 2: no task of the interrupted request found by \S+, past its horizon; sending it \(a request the service held longer could still land/,
    );
    const chunk2 = records(journal).find((r) => r.type === 'created' && r.chunk === 2);
    expect(chunk2?.task).not.toBe(landedIds[0]);
  });

  it('a changed input is exit 2 at once, before any request, even with a chunk in flight', async () => {
    const { journal } = await stoppedInFlight(1);
    const [job] = records(journal) as Array<{ inputs: Array<{ path: string }> }>;
    const input = job?.inputs[0]?.path ?? '';
    writeFileSync(input, readFileSync(input, 'utf8').replace('f7.', 'g7.')); // the same size, other bytes
    const stats = () => world.admin<{ total: number }>('GET', '/__sandbox/stats');
    const before = (await stats()).total;
    const resumed = await world.inProcess(['resume', journal]);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/cannot be continued as it is now: the content of .*in\.txt differs/);
    expect(resumed.stderr).not.toMatch(/taskctl resume/);
    expect((await stats()).total).toBe(before);
    expect(records(journal).map((r) => r.type)).not.toContain('reconciled');
  });

  it('sends the chunk again when it was proven never created', async () => {
    const { journal } = await stoppedInFlight(0);
    const resumed = await world.inProcess(['resume', journal]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(
      /chunk 2: no task of the interrupted request found by \S+, past its horizon; sending it \(a request the service held longer could still land/,
    );
    await itemsOnce(9, 'f');
  });

  it('stops with exit 9 naming the candidates when two could be it; --adopt settles it', async () => {
    const { journal } = await stoppedInFlight(2);
    const stopped = await world.inProcess(['resume', journal]);
    expect(stopped.code).toBe(9);
    expect(stopped.stderr).toMatch(
      /chunk 2 .* may have been created: several matching tasks were created .*\((\d+), (\d+)\)/,
    );
    expect(stopped.stderr).toMatch(/--adopt 2=ID/);
    const [, a] = /\((\d+), (\d+)\)/.exec(stopped.stderr) ?? [];
    const bad = await world.inProcess(['resume', journal, '--adopt', '1=5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/chunk 1 is not in doubt/);
    const settled = await world.inProcess(['resume', journal, '--adopt', `2=${a}`, '-q']);
    expect(settled.code, settled.stderr).toBe(0);
    expect(
      records(journal)
        .filter((r) => r.type === 'reconciled')
        .at(-1),
    ).toMatchObject({ chunk: 2, by: 'user', cost: 3 }); // the adopted task's own cost (3 items at 1 coin)
    expect(existsSync(`${journal}.lock`)).toBe(false);
    expect(records(journal).at(-1)).toMatchObject({ type: 'done', tasks: 3, items: 9, cost: 9 });
  });
});

/**
 * `--job` against a sandbox: a journaled job of 600 items in six chunks, 6 of them `fail-` (the sandbox fails those),
 * then `retry --job` sends exactly those 6 as a new job, and `show --job` exports every item once (the job's size
 * proves nothing more: the bench has the large ones). `main()` in this process on a virtual clock shared with the
 * sandbox (the subject is the job, not the process; retry.test.ts spawns the bin).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../clock.js';
import { startWorld, type E2EWorld } from './spawn-cli.js';

const S = 'domain_check_availability';
let world: E2EWorld;
let dir: string;
let clock: FakeClock;
/** Each command in this process, on the sandbox's virtual clock: a wait's sleeps move the tasks on, no real time. */
const run = (args: string[]) => world.inProcess(args, { clock });
beforeEach(async () => {
  clock = new FakeClock(Date.now());
  world = await startWorld({ itemMs: 0, balance: 1_000_000, clock });
  dir = mkdtempSync(join(tmpdir(), 'taskctl-e2e-job-'));
});
afterEach(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

async function targets(id: number): Promise<string[]> {
  const response = await fetch(`${world.sandbox.url}/tasks/${id}`, { headers: { 'X-API-Key': world.sandbox.apiKey } });
  return ((await response.json()) as { data: { items: Array<{ target: string }> } }).data.items.map((i) => i.target);
}

describe('retry --job against the sandbox', () => {
  it('sends exactly the 6 failed items of a 600-item job in six chunks', async () => {
    const items = Array.from({ length: 600 }, (_, i) => (i % 100 === 42 ? `fail-${i}.com` : `ok-${i}.com`));
    const failed = items.filter((item) => item.startsWith('fail-'));
    expect(failed).toHaveLength(6);
    const file = join(dir, 'items.txt');
    writeFileSync(file, `${items.join('\n')}\n`);
    const journal = join(dir, 'job.jsonl');
    const create = await run(['create', S, '-f', file, '--chunk-size', '100', '--journal', journal, '-y', '-q']);
    expect(create.code, create.stderr).toBe(0);
    expect(create.stdout.trim().split('\n')).toHaveLength(6);
    const wait = await run(['wait', '--job', journal, '-q']);
    expect(wait.code, wait.stderr).toBe(11);

    const exported = await run(['show', '--job', journal, '-o', 'ndjson']);
    expect(exported.code, exported.stderr).toBe(0);
    const records = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { target: string; status: string });
    expect(records.map((r) => r.target)).toEqual(items);
    expect(records.filter((r) => r.status === 'failed').map((r) => r.target)).toEqual(failed);

    const retryJournal = join(dir, 'retry.jsonl');
    const retry = await run(['retry', '--job', journal, '--journal', retryJournal, '-y', '-q']);
    expect(retry.code, retry.stderr).toBe(0);
    const ids = retry.stdout.trim().split('\n').map(Number);
    expect(ids).toHaveLength(1);
    expect(await targets(ids[0] ?? 0)).toEqual(failed);
    expect(readFileSync(`${retryJournal}.input`, 'utf8')).toBe(failed.map((t) => `${JSON.stringify(t)}\n`).join(''));
  }, 60_000);
});

describe('a journal edited to name another task', () => {
  it("chunk 1's task id changed to another task: show and retry --job (same size), wait --job (another size, or the same size but older) are exit 8 naming the chunk", async () => {
    const journal = join(dir, 'job.jsonl');
    // A task of the same service and size made before the job: the snapshot taken before chunk 1's POST saw it.
    const earlier = await run(['create', S, 'm.com', 'n.com', '-y', '-q']);
    expect(earlier.code, earlier.stderr).toBe(0);
    const job = await run([
      'create',
      S,
      'e.com',
      'f.com',
      'g.com',
      'h.com',
      '--chunk-size',
      '2',
      '--journal',
      journal,
      '-y',
      '-q',
    ]);
    expect(job.code, job.stderr).toBe(0);
    // Another task of the same service and size, outside the job.
    const other = await run(['create', S, 'x.com', 'y.com', '-y', '-q']);
    const stranger = Number(other.stdout.trim());
    const edited = readFileSync(journal, 'utf8').replace(/("type":"created","chunk":1,"task":)\d+/, `$1${stranger}`);
    writeFileSync(journal, edited);

    const show = await run(['show', '--job', journal, '-o', 'csv']);
    expect(show.code, show.stderr).toBe(8);
    expect(show.stderr).toMatch(new RegExp(`chunk 1 of \\S+ does not match task ${stranger}`));
    expect(show.stdout).not.toMatch(/x\.com/);
    const retry = await run(['retry', '--job', journal, '--dry-run']);
    expect(retry.code, retry.stderr).toBe(8);
    expect(retry.stderr).toMatch(/chunk 1 of \S+ does not match task/);

    const three = await run(['create', S, 'p.com', 'q.com', 'r.com', '-y', '-q']);
    writeFileSync(
      journal,
      edited.replace(new RegExp(`("type":"created","chunk":1,"task":)${stranger}`), `$1${three.stdout.trim()}`),
    );
    const wait = await run(['wait', '--job', journal, '-q']);
    expect(wait.code, wait.stderr).toBe(8);
    expect(wait.stderr).toMatch(/chunk 1 of \S+ does not match task \d+: it has 3 items, not 2/);

    // The same size, but it existed before the chunk was sent: wait --job tells without reading any items.
    const older = earlier.stdout.trim();
    writeFileSync(journal, edited.replace(new RegExp(`("type":"created","chunk":1,"task":)${stranger}`), `$1${older}`));
    const waitOlder = await run(['wait', '--job', journal, '-q']);
    expect(waitOlder.code, waitOlder.stderr).toBe(8);
    expect(waitOlder.stderr).toMatch(
      new RegExp(`chunk 1 of \\S+ does not match task ${older}: it existed before the chunk was sent`),
    );
  }, 60_000);
});

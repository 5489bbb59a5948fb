/**
 * A state directory (or a `--journal FILE`) put back from a backup taken while its job was stopped: the chunks a later
 * run created are not in the journal put back. Within the ledger's memory, its settled entry of each such chunk gives
 * the chunk its task (docs/behaviour.md#the-ledger); past it, the journal found shorter than this machine last wrote it
 * is refused before anything is sent (exit 9), and the way on its hint names, run as printed, buys nothing again
 * (docs/behaviour.md#jobs).
 */
import { copyFileSync, cpSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { CLAIM_KEEP_MS } from '../../../../src/store/ledger.js';
import { jobStoppedAtChunk4, journalLines } from '../journal-lines.js';
import { jobStoppedByBalance, worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
const ITEMS = ['a.com', 'b.com', 'c.com', 'd.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-restored-backup-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });

async function eachBoughtOnce(): Promise<void> {
  const counts = await world.itemCounts();
  for (const item of ITEMS) expect(counts.get(item), item).toBe(1);
}

/** `hint` run as printed: it ends (exit 0), sends no create past the `posts` already made, and each item is in one task. */
async function followedPaysNothing(hint: string | undefined, posts: number): Promise<void> {
  const followed = await run((hint ?? '').split(' '));
  expect(followed.code, followed.stderr).toBe(0);
  expect(await world.posts()).toBe(posts);
  await eachBoughtOnce();
}

/**
 * Job J (four one-item chunks, chunk 1 created, stopped by the balance), its state directory backed up, then finished
 * by `taskctl resume J --yes` (chunks 2–4), then the backup put back in its place.
 */
async function finishedThenRestored(): Promise<string> {
  const id = await jobStoppedByBalance(world, run, S);
  const state = join(dir, 'state');
  cpSync(state, join(dir, 'state.bak'), { recursive: true });
  const finished = await run(['resume', id, '--yes']);
  expect(finished.code, finished.stderr).toBe(0);
  expect(await world.tasks()).toHaveLength(4);
  rmSync(state, { recursive: true });
  cpSync(join(dir, 'state.bak'), state, { recursive: true });
  return id;
}

it('within the ledger memory, the resume of the backup put back takes the tasks the later run created: each item once', async () => {
  const id = await finishedThenRestored();
  const posts = await world.posts();
  const again = await run(['resume', id, '--yes']);
  await eachBoughtOnce();
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toContain(
    `recovered: task 2 was created for chunk 2 of 4 by an earlier run of job ${id} (this machine's ledger of creates names it; the journal, put back from an earlier copy, does not): taken, not bought again`,
  );
  expect(await world.posts()).toBe(posts);
  // This run paid for none of them: neither its progress nor its summary counts them as its own.
  expect(again.stderr).toContain('chunk 4 of 4: 4 of 4 tasks created; 0 items and 0 coins by this run\n');
  expect(again.stderr).toContain('(tasks 2, 3, 4 recovered; 0 by this run)');
  // Journaled as recovered: the next resume prints the summary, sending nothing.
  const summary = await run(['resume', id, '--yes']);
  expect(summary.code, summary.stderr).toBe(0);
  expect(await world.posts()).toBe(posts);
});

it('past the ledger memory, the journal put back is refused (exit 9, nothing sent), and its hint run as printed buys nothing again', async () => {
  const id = await finishedThenRestored();
  world.clock.advance(CLAIM_KEEP_MS + 60_000);
  const posts = await world.posts();
  const refused = await run(['resume', id, '--yes']);
  await eachBoughtOnce();
  expect(refused.code, refused.stderr).toBe(9);
  expect(refused.stderr).toMatch(
    new RegExp(
      `^error: job ${id}: its journal \\S+ is shorter than when this machine last wrote to it \\(\\d[\\d,]* bytes now, \\d[\\d,]* then\\): it was put back from an earlier copy, and what was created since is not known here; nothing was sent$`,
      'm',
    ),
  );
  expect(await world.posts()).toBe(posts);
  const hint = /continue with a look for each chunk's task on the service first[^:]*: taskctl (resume .*)$/m.exec(
    refused.stderr,
  )?.[1];
  expect(hint).toBe(`resume ${id} --yes --reuse-window 22m`);
  await followedPaysNothing(hint, posts);
});

it('a --journal FILE put back in place from an earlier copy is refused the same way past the ledger memory', async () => {
  await world.setBalance(1);
  await world.fault({ method: 'GET', path: '/balance', kind: 'status', status: 503, count: 100 });
  const journal = join(dir, 'j.jsonl');
  const stopped = await run(['create', S, ...ITEMS, '--chunk-size', '1', '-y', '--journal', journal]);
  expect(stopped.code, stopped.stderr).toBe(6);
  await world.clearFaults();
  await world.setBalance(100);
  copyFileSync(journal, join(dir, 'backup.jsonl'));
  const finished = await run(['resume', journal, '--yes']);
  expect(finished.code, finished.stderr).toBe(0);
  copyFileSync(join(dir, 'backup.jsonl'), join(dir, 'j.new'));
  renameSync(join(dir, 'j.new'), journal);
  world.clock.advance(CLAIM_KEEP_MS + 60_000);
  const posts = await world.posts();
  const refused = await run(['resume', journal, '--yes']);
  await eachBoughtOnce();
  expect(refused.code, refused.stderr).toBe(9);
  expect(await world.posts()).toBe(posts);
  // Its hint names the journal as given, with the lookup: followed as printed, nothing is bought again.
  const hint = /: taskctl (resume .*--reuse-window \d+m)$/m.exec(refused.stderr)?.[1];
  expect(hint).toBe(`resume ${journal} --yes --reuse-window 22m`);
  await followedPaysNothing(hint, posts);
});

it('a chunk the ledger no longer names a task for when its turn comes stops the run (exit 9): never sent again', async () => {
  const id = await finishedThenRestored();
  // The entry of chunk 3 names task 1 (chunk 1's, claimed by the journal) by the time chunk 3 is sent: the look at the
  // journal's open counts it, the send cannot take it (as an entry that expired in between, or a task the service no
  // longer shows as claimed).
  const ledger = join(dir, 'cache', 'creates.json');
  const file = JSON.parse(readFileSync(ledger, 'utf8')) as {
    entries: Array<{ job?: { chunk: number }; taskId?: number }>;
  };
  for (const entry of file.entries) if (entry.job?.chunk === 3) entry.taskId = 1;
  writeFileSync(ledger, JSON.stringify(file));
  const posts = await world.posts();
  const stopped = await run(['resume', id, '--yes']);
  await eachBoughtOnce();
  expect(stopped.code, stopped.stderr).toBe(9);
  expect(stopped.stderr).toContain(
    `chunk 3 of 4 may have been created by an earlier run of job ${id}: its journal was put back from an earlier copy, and this machine's ledger no longer names that chunk's task; nothing was sent for it`,
  );
  expect(await world.posts()).toBe(posts);
  // The way on is the look on the service, as past the ledger memory: followed as printed, nothing is bought again.
  const hint = /: taskctl (resume .*--reuse-window \d+m)$/m.exec(stopped.stderr)?.[1];
  expect(hint, stopped.stderr).toMatch(new RegExp(`^resume ${id} --yes --reuse-window \\d+m$`));
  await followedPaysNothing(hint, posts);
});

it("a chunk whose send a killed run left 'sending' in the ledger, put back unsent: its resume does not wait on itself", async () => {
  const { job, journal } = await jobStoppedAtChunk4(run, dir, S, ITEMS);
  // The run was killed while chunk 4's request was in flight: its ledger entry still says `sending` (that run's pid;
  // in this process, the same pid as every run's). The journal then put back from a copy taken before that send.
  const ledger = join(dir, 'cache', 'creates.json');
  const file = JSON.parse(readFileSync(ledger, 'utf8')) as { entries: Array<Record<string, unknown>> };
  for (const entry of file.entries) {
    if ((entry.job as { chunk?: number } | undefined)?.chunk !== 4) continue;
    entry.state = 'sending';
    delete entry.taskId;
    delete entry.taskCreatedAt;
    delete entry.taskItems;
    delete entry.closedAt;
  }
  writeFileSync(ledger, JSON.stringify(file));
  const kept = journalLines(journal).filter((record) => record.chunk !== 4);
  writeFileSync(journal, kept.map((record) => `${JSON.stringify(record)}\n`).join(''));
  const posts = await world.posts();
  const refused = await run(['resume', job, '--yes']);
  expect(refused.code, refused.stderr).toBe(9);
  const hint = /: taskctl (resume .*--reuse-window \d+m)$/m.exec(refused.stderr)?.[1];
  expect(hint, refused.stderr).toBeDefined();
  const started = world.clock.now();
  const followed = await run((hint ?? '').split(' '));
  expect(followed.code, followed.stderr).toBe(0);
  // The run of that entry is not this one, which holds the job's lock now: it has stopped, and is said so.
  expect(followed.stderr).not.toMatch(/is sending the same items/);
  expect(followed.stderr).toMatch(/has stopped/);
  expect(world.clock.now() - started).toBeLessThan(60_000);
  expect(await world.posts()).toBe(posts);
  await eachBoughtOnce();
});

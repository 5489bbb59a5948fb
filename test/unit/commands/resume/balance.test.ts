/**
 * A `resume` the balance does not cover is refused before its first POST (exit 6): it says that this run sent nothing
 * more (earlier runs created part of the job), what the balance covers, and the way on: top up, then the resume. Never
 * "nothing was created" beside tasks the job has, and never the refused command alone as the next step.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';
import { keepJournalLines } from '../journal-lines.js';

const S = 'domain_check_availability'; // 1 coin an item
let world: World;
let dir: string;
worldEachTest('taskctl-resume-balance-', (w, d) => ((world = w), (dir = d)));

const journal = () => join(dir, 'job.jsonl');
const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });

/** A job of four chunks of two items, stopped after chunk 2: its journal says chunks 3 and 4 were never sent. */
async function stoppedAfterChunk2(): Promise<void> {
  const items = ['a.com', 'b.com', 'c.com', 'd.com', 'e.com', 'f.com', 'g.com', 'h.com'];
  const created = await run(['create', S, ...items, '--chunk-size', '2', '--journal', journal(), '-q']);
  expect(created.code, created.stderr).toBe(0);
  keepJournalLines(
    journal(),
    (row) => row.type !== 'done' && !(typeof row.chunk === 'number' && row.chunk > 2),
    undefined,
    join(dir, 'cache'),
  );
}

/**
 * A job of one-item chunks, as if killed while chunk `chunk`'s POST was out: its send on record, nothing after it. The
 * task that POST created (the service has it; the journal does not).
 */
async function killedWhileSending(items: string[], chunk: number): Promise<number> {
  const created = await run(['create', S, ...items, '--chunk-size', '1', '--journal', journal(), '-q']);
  expect(created.code, created.stderr).toBe(0);
  let sends = 0;
  keepJournalLines(
    journal(),
    (row) => sends < chunk && ((sends += row.type === 'send' ? 1 : 0), true),
    undefined,
    join(dir, 'cache'),
  );
  return Number(created.stdout.trim().split('\n')[chunk - 1]);
}

it('refused by the balance: nothing more sent by this run, what it covers, top up, then the resume', async () => {
  await stoppedAfterChunk2();
  await world.setBalance(3);
  const posts = await world.posts();
  const refused = await run(['resume', journal(), '-y']);
  expect(refused.code, refused.stderr).toBe(6);
  expect(refused.stderr).toContain(
    'error: the estimate is 4 coins, above the balance of 3; nothing more was sent by this run\nthe job has 2 of 4 tasks: 1–2\n',
  );
  expect(refused.stderr).toMatch(
    /\nThe balance covers 3 of the 4 items \(1 whole chunk of 2\)\. Top up the balance, then continue it: taskctl resume j-\S+ --yes\n$/,
  );
  expect(refused.stderr).not.toContain('nothing was created');
  expect(refused.stderr).not.toContain('taskctl jobs'); // no task of this run: the job is not named again
  expect(await world.posts()).toBe(posts);

  await world.setBalance(100);
  const resumed = await run(['resume', journal(), '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toMatch(/4 tasks for 8 items, 8 coins \(2 by this run\)/);
  expect(await world.posts()).toBe(posts + 2);
});

it('refused by the balance after settling a chunk with --adopt: the journal byte for byte as it was, and the hint, followed, adopts it again', async () => {
  const task = await killedWhileSending(['a.com', 'b.com', 'c.com'], 1);
  const before = readFileSync(journal(), 'utf8');
  await world.setBalance(1);
  const posts = await world.posts();
  const refused = await run(['resume', journal(), '--adopt', `1=${task}`, '-y']);
  expect(refused.code, refused.stderr).toBe(6);
  expect(refused.stderr).toContain(`chunk 1: task ${task} adopted`);
  const hint = /then continue it: taskctl (resume .*)\n$/.exec(refused.stderr)?.[1] ?? '';
  expect(hint).toMatch(new RegExp(`^resume j-\\S+ --yes --adopt 1=${task}$`));
  expect(readFileSync(journal(), 'utf8')).toBe(before);
  expect(await world.posts()).toBe(posts);

  await world.setBalance(100);
  const resumed = await run(hint.split(' '));
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(`chunk 1: task ${task} adopted`);
  // Chunk 1 never bought again; chunks 2 and 3 (their records cut above) sent once each.
  expect(await world.posts()).toBe(posts + 2);
  expect((await world.itemCounts()).get('a.com')).toBe(1);
  expect(readFileSync(journal(), 'utf8')).toContain(`"task":${task},"cost":1,"by":"user"`);
});

it('a chunk given its task with --adopt is not counted as left to send: the first line, the estimate and --max-cost', async () => {
  const task = await killedWhileSending(['a.com', 'b.com', 'c.com'], 1);
  const posts = await world.posts();
  // Chunks 2 and 3 are left, 2 coins: a --max-cost of 2 covers them (chunk 1, adopted, is never sent).
  const resumed = await run(['resume', journal(), '--adopt', `1=${task}`, '--max-cost', '2', '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toMatch(
    /^job j-\S+: 0 of 3 chunks done, 1 in doubt \(chunk 1\); next: settle chunk 1 as given, then send 2 chunks at most \(2 items\)$/m,
  );
  expect(resumed.stderr).toContain(`chunk 1: task ${task} adopted`);
  expect(await world.posts()).toBe(posts + 2);
});

it('refused by --max-cost before settling: the hint keeps the --adopt, and followed, buys the rest once', async () => {
  const task = await killedWhileSending(['a.com', 'b.com', 'c.com'], 1);
  const before = readFileSync(journal(), 'utf8');
  const posts = await world.posts();
  const refused = await run(['resume', journal(), '--adopt', `1=${task}`, '--max-cost', '1']);
  expect(refused.code, refused.stderr).toBe(6);
  const hint = /Continue it with: taskctl (resume .*)\n$/.exec(refused.stderr)?.[1] ?? '';
  expect(hint).toMatch(new RegExp(`^resume j-\\S+ --max-cost 2 --adopt 1=${task}$`));
  expect(readFileSync(journal(), 'utf8')).toBe(before);

  const resumed = await run(hint.split(' '));
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(`chunk 1: task ${task} adopted`);
  expect(await world.posts()).toBe(posts + 2);
  expect((await world.itemCounts()).get('a.com')).toBe(1);
});

it('the only chunk left adopted with --adopt: nothing to buy, the adoption recorded, the job finished', async () => {
  const task = await killedWhileSending(['a.com', 'b.com'], 2);
  const posts = await world.posts();
  const resumed = await run(['resume', journal(), '--adopt', `2=${task}`, '--max-cost', '0']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toMatch(/; next: settle chunk 2 as given, then send 0 chunks at most \(0 items\)$/m);
  expect(resumed.stderr).toContain(`chunk 2: task ${task} adopted`);
  expect(await world.posts()).toBe(posts);
  const lines = readFileSync(journal(), 'utf8').trim().split('\n');
  expect(lines.some((line) => line.includes(`"task":${task},"cost":1,"by":"user"`))).toBe(true);
  expect(JSON.parse(lines.at(-1) ?? '{}')).toMatchObject({ type: 'done', tasks: 2 });
  const again = await run(['resume', journal()]);
  expect(again.code, again.stderr).toBe(0);
  expect(await world.posts()).toBe(posts);
});

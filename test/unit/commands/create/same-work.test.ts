/**
 * A job stopped cleanly between chunks (its stdout closed: nothing in doubt), then the same create again with
 * --reuse-window (the CI re-run): the re-run is that job's work again, so it continues it (core/submit/same-work.ts)
 * rather than starting a second job whose `resume` would buy the items again. A plain create without a window buys
 * afresh, and says which stopped job holds the same items.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import { expect, it } from 'vitest';
import { SHOW_READ_AHEAD } from '../../../../src/core/job/read-ahead.js';
import { unrecordedStarts } from '../../../../src/core/jobs.js';
import type { MemoryOutputStream } from '../../../../src/output/memory-io.js';
import { JobStore } from '../../../../src/store/job-files.js';
import { ctrlCWhen, settle } from '../../../clock.js';
import { Gate } from '../gate.js';
import { runTaskctl, type RunResult } from '../run-in-process.js';
import { stoppedByCtrlC, stoppedInChunk2Check, withClosedStdout, worldEachTest, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
const ITEMS = Array.from({ length: 8 }, (_, i) => `same-${i + 1}.com`);
let world: World;
let dir: string;
worldEachTest('taskctl-same-work-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[]) => world.run(argv, { home: dir });
const create = ['create', S, ...ITEMS, '--chunk-size', '2', '-y', '-q'];

async function everyItemOnce(): Promise<void> {
  const counts = await world.itemCounts();
  for (const item of ITEMS) expect(counts.get(item), item).toBe(1);
}

/** The create with its stdout closed after its first task id: exit 14, chunks 1-2 created, the hint to resume it. */
async function stoppedBetweenChunks(): Promise<string> {
  const first = await withClosedStdout(world, create, dir, 1);
  expect(first.code, first.stderr).toBe(14);
  const stopped = /Continue it with: taskctl resume (j-[0-9a-z]+)(?: --yes)?$/m.exec(first.stderr)?.[1];
  expect(stopped, first.stderr).toBeDefined();
  return stopped ?? '';
}

it('the --reuse-window re-run continues the stopped job; the bare `resume` then finds none to continue', async () => {
  const stopped = await stoppedBetweenChunks();
  const before = (await world.tasks()).length;
  const again = await run([...create, '--reuse-window', '1h']);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toMatch(
    new RegExp(`^continuing job ${stopped}, started \\S+ and stopped part-way: the same items in the same chunks`, 'm'),
  );
  expect(again.stderr).toContain(`job ${stopped}: taskctl jobs`);
  expect((await world.tasks()).length).toBe(4);
  // Every task holding its items: the stopped job's first (a create's stdout, not a resume's), then those it created.
  expect(before).toBe(2);
  const ids = (await world.tasks()).map(({ id }) => id).sort((a, b) => a - b);
  expect(again.stdout).toBe(ids.map((id) => `${id}\n`).join(''));
  await everyItemOnce();
  const jobs = JSON.parse((await run(['jobs', '-o', 'json'])).stdout) as Array<{ id: string; state: string }>;
  expect(jobs).toEqual([expect.objectContaining({ id: stopped, state: 'finished' })]);
  const posts = await world.posts();
  const bare = await run(['resume']);
  expect(bare.code, bare.stderr).toBe(0);
  expect(bare.stderr).toContain('no interrupted job to resume');
  expect(await world.posts()).toBe(posts);
  await everyItemOnce();
});

it('a plain create buys afresh, and names the stopped job that holds the same items', async () => {
  const stopped = await stoppedBetweenChunks();
  const again = await run(create);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toMatch(
    new RegExp(
      `job ${stopped}, started \\S+ and stopped part-way, holds the same items in the same chunks: this run buys them afresh`,
    ),
  );
  expect(again.stderr).not.toContain('continuing job');
});

it('the continuing re-run keeps no journal of its own while it runs: killed then, it leaves no unfinished start', async () => {
  const stopped = await stoppedByCtrlC(world, create, dir, 'reset-before');
  const store = new JobStore(join(dir, 'state'));
  // What `taskctl jobs` would find at each wait of the re-run (settling the stopped job's chunk in doubt), and every file
  // of the state directory but the stopped job's: a kill there leaves exactly that.
  const seen: string[][] = [];
  const others = (sub: string) => readdirSync(join(dir, 'state', sub)).filter((name) => !name.startsWith(stopped));
  const again = await runTaskctl([...create, '--reuse-window', '1h'], {
    env: world.env,
    home: dir,
    clock: ctrlCWhen(world.clock, new AbortController(), () => {
      seen.push([
        ...unrecordedStarts(store).map((start) => `unfinished start ${start.id}`),
        ...store.list().map((job) => job.id),
        ...others('jobs'),
        ...others('locks'),
      ]);
      return false;
    }),
  });
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toMatch(new RegExp(`^continuing job ${stopped}`, 'm'));
  expect(seen.length).toBeGreaterThan(0);
  for (const listed of seen) expect(listed).toEqual([stopped]);
  await everyItemOnce();
});

it('Ctrl-C while the continuing re-run settles the chunk in doubt: the hint keeps its --yes, --max-cost and --wait', async () => {
  const stopped = await stoppedByCtrlC(world, create, dir, 'reset-before');
  const controller = new AbortController();
  const posts = await world.posts();
  const again = await runTaskctl([...create, '--reuse-window', '1h', '--max-cost', '100', '--wait'], {
    env: world.env,
    home: dir,
    clock: ctrlCWhen(world.clock, controller, () => true),
    signal: controller.signal,
  });
  expect(again.code, again.stderr).toBe(130);
  expect(again.stderr).toMatch(new RegExp(`^continuing job ${stopped}`, 'm'));
  expect(again.stderr.trim().split('\n').slice(-2)).toEqual([
    'error: interrupted before this run sent anything',
    `Continue it with: taskctl resume ${stopped} --yes --max-cost 100 --wait`,
  ]);
  expect(await world.posts()).toBe(posts);
  // Followed as printed, with no terminal to confirm on: it ends the job, every item once.
  const resumed = await run(['resume', stopped, '--yes', '--max-cost', '100', '--wait', '-q']);
  expect(resumed.code, resumed.stderr).toBe(0);
  await everyItemOnce();
});

/**
 * A job of 8 chunks of one item stopped after its 5th task (its stdout closed after 4 ids), then the same create again
 * with the window, its tasks as rows (-o tsv): the re-run takes the 5 tasks and reads each (GET /tasks/ID) before
 * printing it. Each taken read is held at a Gate for a few turns of the event loop, the rest let through at once.
 * Returns the run, the taken ids, the most taken reads held at once, and stdout as it was when the last one was sent.
 */
async function takenAsRows(): Promise<{ again: RunResult; taken: number[]; most: number; beforeLast: string }> {
  const one = ['create', S, ...ITEMS, '--chunk-size', '1', '-y'];
  const first = await withClosedStdout(world, [...one, '-q'], dir, 4);
  expect(first.code, first.stderr).toBe(14);
  const taken = (await world.tasks()).map(({ id }) => id).sort((a, b) => a - b);
  expect(taken).toHaveLength(5);
  const agent = new Agent();
  const gate = new Gate(agent);
  const read = (path: string) => Number(/\/tasks\/(\d+)(?:\?|$)/.exec(path)?.[1]);
  const reads: Array<{ release: () => void; turns: number }> = [];
  let stdout: MemoryOutputStream | undefined;
  let beforeLast: string | undefined;
  gate.events.on('held', () => {
    for (const request of [...gate.held]) {
      if (reads.some((held) => held.release === request.release)) continue;
      const id = read(request.path);
      // Only the first read of each taken task (a reuse walk may read it again later): held.
      if (request.method !== 'GET' || !taken.includes(id) || beforeLast !== undefined) request.release();
      else {
        if (id === taken.at(-1)) beforeLast = stdout?.text() ?? '';
        reads.push({ release: request.release, turns: 0 });
      }
    }
  });
  const at = { ended: false };
  let most = 0;
  const run = world.run([...one, '--reuse-window', '1h', '-o', 'tsv'], {
    home: dir,
    dispatcher: gate,
    terminal: (streams) => (stdout = streams.stdout),
  });
  void run.finally(() => (at.ended = true)).catch(() => undefined);
  try {
    while (!at.ended) {
      await settle();
      most = Math.max(most, reads.length);
      // The oldest held read let through once it has waited 3 turns: time enough for the run to send what it would.
      for (const held of reads) held.turns++;
      if ((reads[0]?.turns ?? 0) >= 3) reads.shift()?.release();
    }
    return { again: await run, taken, most, beforeLast: beforeLast ?? '' };
  } finally {
    await agent.close();
  }
}

const rowIds = (stdout: string) => stdout.split('\n').flatMap((line) => /^(\d+)\t/.exec(line)?.[1] ?? []);

it('the re-run reads the tasks it takes a few at a time (the read-ahead of show --job), printed in chunk order', async () => {
  const { again, taken, most } = await takenAsRows();
  expect(again.code, again.stderr).toBe(0);
  expect(most).toBeGreaterThan(1);
  expect(most).toBeLessThanOrEqual(SHOW_READ_AHEAD.tasks);
  // The taken tasks first, in chunk order, then the 3 this run created.
  expect(rowIds(again.stdout).map(Number)).toEqual([...taken, ...[6, 7, 8]]);
});

it('the re-run prints each task it takes as it is read: the first is on stdout before the last is asked for', async () => {
  const { again, taken, beforeLast } = await takenAsRows();
  expect(again.code, again.stderr).toBe(0);
  expect(rowIds(beforeLast)).toContain(String(taken[0]));
});

it('a chunk in doubt that landed: the re-run prints every task in chunk order, the settled one in its place', async () => {
  // Chunk 1 created, chunk 2's POST reset and the run stopped while it checked; then that request lands after all.
  const items = ['order-1.com', 'order-2.com', 'order-3.com', 'order-4.com'];
  const argv = ['create', S, ...items, '--chunk-size', '1', '-y', '-o', 'tsv'];
  const stopped = await stoppedInChunk2Check(world, (stop) => runTaskctl(argv, { env: world.env, home: dir, ...stop }));
  expect(stopped.code, stopped.stderr).toBe(130);
  await world.createTask(S, ['order-2.com']);
  const again = await run([...argv, '--reuse-window', '1h']);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toContain('continuing job');
  const byItem = new Map<string, number>();
  for (const { id } of await world.tasks()) {
    const [item] = (
      JSON.parse((await run(['show', String(id), '-o', 'json'])).stdout) as { items: Array<{ target: string }> }
    ).items;
    byItem.set(item?.target ?? '', id);
  }
  expect(byItem.size).toBe(4);
  expect(rowIds(again.stdout).map(Number)).toEqual(items.map((item) => byItem.get(item)));
});

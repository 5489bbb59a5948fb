/**
 * A job stopped cleanly between chunks (its stdout closed: nothing in doubt), then the same create again with
 * --reuse-window (the CI re-run): the re-run is that job's work again, so it continues it (core/submit/same-work.ts)
 * rather than starting a second job whose `resume` would buy the items again. A plain create without a window buys
 * afresh, and says which stopped job holds the same items.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { unrecordedStarts } from '../../../../src/core/jobs.js';
import { JobStore } from '../../../../src/store/job-files.js';
import { ctrlCWhen } from '../../../clock.js';
import { runTaskctl } from '../run-in-process.js';
import { stoppedByCtrlC, withClosedStdout, worldEachTest, type World } from '../sandbox-world.js';

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

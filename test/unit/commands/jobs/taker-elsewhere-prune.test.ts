/**
 * A job stopped with a chunk in doubt, taken over by a re-run of more of its items under another state directory (a
 * CI step with its own TASKCTL_STATE_DIR, the same cache directory): the re-run creates the stopped job's other chunks
 * too, without a hand-over of them, and the stopped job's `resume` takes those tasks from the re-run's journal
 * (core/submit/hand-over.ts `coveringTasks`). So that journal is kept where the re-run ran, by `jobs --prune` and by
 * the retention, while the stopped job has not finished; once it has, it goes (docs/behaviour.md#jobs). Counted on the
 * service: the POSTs, the tasks that hold each item, the coins spent.
 */
import { existsSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { expect, it } from 'vitest';
import { runTaskctl } from '../run-in-process.js';
import { startedBefore, stoppedByCtrlC, worldEachTest, type World } from '../sandbox-world.js';

const ITEMS = ['tp-a.com', 'tp-b.com', 'tp-c.com', 'tp-d.com', 'tp-e.com', 'tp-f.com'];
const CREATE = ['create', 'domain_check_availability', ...ITEMS, '--chunk-size', '2', '-y', '-q'];
let world: World;
let dir: string;
worldEachTest('taskctl-taker-elsewhere-prune-', (w, d) => ((world = w), (dir = d)));

/** A run in `dir`'s home (its config and cache directory), its jobs in the state directory `state`. */
const run = (argv: string[], state = 'state') =>
  runTaskctl(argv, { env: { ...world.env, TASKCTL_STATE_DIR: join(dir, state) }, clock: world.clock, home: dir });

const journal = (state: string, id: string) => join(dir, state, 'jobs', `${id}.jsonl`);

/** The account's balance on the service (the sandbox's admin API). */
async function balance(): Promise<number> {
  const response = await request(`${world.sandbox.origin}/__sandbox/state?tasks=false`);
  return ((await response.body.json()) as { balance: number }).balance;
}

/** Every item of the service's tasks held by exactly one task. */
async function paidOnce(items: readonly string[]): Promise<void> {
  const counts = await world.itemCounts();
  for (const item of items) expect(counts.get(item), item).toBe(1);
  expect([...counts.values()].reduce((sum, count) => sum + count, 0)).toBe(items.length);
}

/**
 * The stopped job (state directory `state`: chunk 1's POST lost, Ctrl-C while it checks, chunks 2 and 3 never sent)
 * and the re-run of its items and one more under `state2`, finished: it took chunk 1 over and created every chunk
 * (with `reset-after`, the stopped request made chunk 1's task, which the re-run reused instead of sending it).
 */
async function stoppedAndTakenElsewhere(
  fault: 'reset-before' | 'reset-after' = 'reset-before',
): Promise<{ stopped: string; rerun: string }> {
  const stopped = await stoppedByCtrlC(world, CREATE, dir, fault);
  startedBefore(dir, stopped, 2 * 3_600_000);
  const again = await run([...CREATE, 'tp-g.com', '--reuse-window', '1h'], 'state2');
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toContain(`job ${stopped} stopped with these items in doubt (its chunk 1)`);
  const rerun = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(again.stderr)?.[1] ?? '';
  expect(rerun).not.toBe('');
  return { stopped, rerun };
}

it.each([
  ['sent', 'reset-before'],
  ['reused', 'reset-after'],
] as const)(
  "`jobs --prune` where the re-run ran keeps it while the stopped job has not finished (the chunk taken over %s): that job's resume pays for nothing twice",
  async (_how, fault) => {
    const { stopped, rerun } = await stoppedAndTakenElsewhere(fault);
    await paidOnce([...ITEMS, 'tp-g.com']);
    const posts = await world.posts();
    const coins = await balance();
    const pruned = await run(['jobs', '--prune'], 'state2');
    expect(pruned.code, pruned.stderr).toBe(0);
    const resumed = await run(['resume', stopped, '-y']);
    // Nothing more on the service: no POST, no task, no coin.
    expect(await world.posts()).toBe(posts);
    expect(await balance()).toBe(coins);
    await paidOnce([...ITEMS, 'tp-g.com']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`take chunk 2, 3's tasks from job ${rerun}`);
    expect(existsSync(journal('state2', rerun))).toBe(true);
    // The stopped job has finished: the re-run is no longer needed there, and goes.
    const again = await run(['jobs', '--prune'], 'state2');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/removed 1 finished job/);
    expect(existsSync(journal('state2', rerun))).toBe(false);
  },
);

it('the retention keeps it the same way, and lets it go once the stopped job has finished', async () => {
  const { stopped, rerun } = await stoppedAndTakenElsewhere();
  const old = (world.clock.now() - 31 * 24 * 3_600_000) / 1000;
  utimesSync(journal('state2', rerun), old, old);
  // `taskctl jobs` there prunes what is past the retention (30 days): not this one.
  const listed = await run(['jobs', '-o', 'json'], 'state2');
  expect(listed.code, listed.stderr).toBe(0);
  const posts = await world.posts();
  const coins = await balance();
  const resumed = await run(['resume', stopped, '-y']);
  expect(await world.posts()).toBe(posts);
  expect(await balance()).toBe(coins);
  await paidOnce([...ITEMS, 'tp-g.com']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(existsSync(journal('state2', rerun))).toBe(true);
  utimesSync(journal('state2', rerun), old, old);
  const after = await run(['jobs', '-o', 'json'], 'state2');
  expect(after.code, after.stderr).toBe(0);
  expect(existsSync(journal('state2', rerun))).toBe(false);
});

it("the stopped job's state directory thrown away: nothing can resume it, and the re-run goes as a finished job does", async () => {
  const { rerun } = await stoppedAndTakenElsewhere();
  rmSync(join(dir, 'state'), { recursive: true });
  const pruned = await run(['jobs', '--prune'], 'state2');
  expect(pruned.code, pruned.stderr).toBe(0);
  expect(pruned.stderr).toMatch(/removed 1 finished job/);
  expect(existsSync(journal('state2', rerun))).toBe(false);
});

it('a re-run that took it over whole (the same items, the same chunks) goes: the takeover stands in the stopped job’s own journal, and its resume sends nothing', async () => {
  const stopped = await stoppedByCtrlC(world, CREATE, dir, 'reset-before');
  startedBefore(dir, stopped, 2 * 3_600_000);
  const again = await run([...CREATE, '--reuse-window', '1h'], 'state2');
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toContain('it is superseded');
  const posts = await world.posts();
  const coins = await balance();
  const pruned = await run(['jobs', '--prune'], 'state2');
  expect(pruned.stderr).toMatch(/removed 1 finished job/);
  const resumed = await run(['resume', stopped, '-y']);
  expect(await world.posts()).toBe(posts);
  expect(await balance()).toBe(coins);
  await paidOnce(ITEMS);
  expect(resumed.code, resumed.stderr).toBe(2);
  expect(resumed.stderr).toContain('nothing was sent');
});

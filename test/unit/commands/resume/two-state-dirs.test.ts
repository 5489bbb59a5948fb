/**
 * One journal, two state directories (another user, a container with another HOME, CI steps with their own
 * TASKCTL_STATE_DIR): the job is locked beside its journal file too, so a second run that reaches the same file is
 * exit 2 naming the holder while the first runs, and nothing is created twice (docs/behaviour.md#jobs). A journal
 * with a second name (a hard link) has a lock beside each name, so a run refuses it until the name has a file of its own.
 * A journal renamed while a run holds it: the run stops before its next chunk, and a run through the new name in the
 * same directory meets the old name's lock, which records the file's identity.
 */
import { copyFileSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, type Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../../src/lib/time.js';
import { worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl, type RunResult } from '../run-in-process.js';

const S = 'domain_check_availability';
const ITEMS = ['a.com', 'b.com', 'c.com', 'd.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-two-states-', (w, d) => ((world = w), (dir = d)));

/** A run with a home (config, cache, state directory) of its own. */
const run = (home: string, argv: string[], clock: Clock = world.clock) =>
  runTaskctl(argv, { env: world.env, clock, home: join(dir, home) });

/** Every item of the world's tasks, each with how many tasks hold it. */
async function itemCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { id } of await world.tasks()) {
    const response = await fetch(`${world.sandbox.origin}/__sandbox/tasks/${id}`);
    const { task } = (await response.json()) as { task: { items: Array<{ target: string }> } };
    for (const item of task.items) counts[item.target] = (counts[item.target] ?? 0) + 1;
  }
  return counts;
}

/**
 * Run A (home `a`) creates the job, chunk 2's answer is lost, and while A checks the task list for it (its first
 * sleep of a second or more: it holds the job), run B (home `b`) runs `second(journal of A)`.
 */
async function whileARuns(
  argvA: string[],
  second: () => string[] | undefined,
  lost: 'reset-before' | 'reset-after' = 'reset-before',
  then?: () => Promise<void>,
): Promise<{ a: RunResult; b: RunResult | undefined }> {
  await world.fault({ method: 'POST', path: '/tasks', kind: 'delay', delayMs: 0 });
  await world.fault({ method: 'POST', path: '/tasks', kind: lost, count: 1 });
  let b: RunResult | undefined;
  let done = false;
  const clock: Clock = {
    now: () => world.clock.now(),
    sleep: async (ms, signal) => {
      if (!done && ms >= 1000) {
        done = true;
        const argv = second();
        if (argv) b = await run('b', argv);
        await then?.();
      }
      return world.clock.sleep(ms, signal);
    },
  };
  const a = await run('a', argvA, clock);
  return { a, b };
}

describe('one journal, two state directories', () => {
  it('resume FILE from another state directory while a create --journal FILE runs: exit 2 naming the holder', async () => {
    const journal = join(dir, 'job.jsonl');
    const { a, b } = await whileARuns(['create', S, ...ITEMS, '--chunk-size', '1', '--journal', journal, '-q'], () => [
      'resume',
      journal,
      '-q',
    ]);
    expect(b?.code, b?.stderr).toBe(2);
    expect(b?.stderr).toMatch(new RegExp(`in use by another taskctl \\(process ${process.pid} on `));
    expect(b?.stderr).toMatch(/Wait for that run to end/);
    // A's own outcome for chunk 2 (a lost answer it cannot prove either way), then A's resume ends the job.
    expect(a.code, a.stderr).toBe(9);
    const resumed = await run('a', ['resume', journal, '-q']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await itemCounts()).toEqual({ 'a.com': 1, 'b.com': 1, 'c.com': 1, 'd.com': 1 });
    const records = readFileSync(journal, 'utf8').trim().split('\n');
    expect(records.filter((line) => line.includes('"type":"done"'))).toHaveLength(1);
  });

  it('a job of one state directory, resumed by its file from another while it runs: exit 2', async () => {
    const { a, b } = await whileARuns(['create', S, ...ITEMS, '--chunk-size', '1', '-q'], () => {
      const jobs = join(dir, 'a', 'state', 'jobs');
      const [name] = readdirSync(jobs).filter((file) => file.endsWith('.jsonl'));
      return ['resume', join(jobs, name ?? 'none'), '-q'];
    });
    expect(b?.code, b?.stderr).toBe(2);
    expect(b?.stderr).toMatch(/in use by another taskctl/);
    expect(a.code, a.stderr).toBe(9);
    const resumed = await run('a', ['resume', /taskctl resume (j-[0-9a-z]+)/.exec(a.stderr)?.[1] ?? '', '-q']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await itemCounts()).toEqual({ 'a.com': 1, 'b.com': 1, 'c.com': 1, 'd.com': 1 });
  });

  it('a second name (a hard link) of the journal: refused by a run through either name, then resumed once it is a copy', async () => {
    const journal = join(dir, 'job.jsonl');
    const other = join(dir, 'backup.jsonl');
    const { a, b } = await whileARuns(['create', S, ...ITEMS, '--chunk-size', '1', '--journal', journal, '-q'], () => {
      linkSync(journal, other); // made while A runs: A holds the file, under the other name's lock
      return ['resume', other, '-q'];
    });
    expect(b?.code, b?.stderr).toBe(2);
    expect(b?.stderr).toBe(
      `error: the journal ${other} has 2 names (hard links): a run locks a journal by its name, so a run through another name could send the same chunks and pay twice; nothing was sent\n` +
        `Give this name a file of its own (cp ${other} ${other}.new && mv ${other}.new ${other}), then resume the job from one place; or remove the other name.\n`,
    );
    expect(a.code, a.stderr).toBe(9); // chunk 2 in doubt, chunks 3 and 4 never sent
    const tasks = (await world.tasks()).length;
    for (const [home, name] of [
      ['a', journal],
      ['b', other],
    ] as const) {
      const refused = await run(home, ['resume', name, '-q']);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(/has 2 names \(hard links\)/);
    }
    expect((await world.tasks()).length).toBe(tasks);
    // What read-only commands do is unchanged: the same bytes, whichever name.
    const shown = await run('b', ['show', '--job', other, '-o', 'ndjson']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^\{"task":1,"target":"a.com","status":"completed"/);
    // As the hint says, `cp journal journal.new && mv journal.new journal`, without a shell spawned for it.
    copyFileSync(journal, `${journal}.new`);
    renameSync(`${journal}.new`, journal);
    const resumed = await run('a', ['resume', journal, '-q']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await itemCounts()).toEqual({ 'a.com': 1, 'b.com': 1, 'c.com': 1, 'd.com': 1 });
  });

  it("a journal renamed (mv) while its run holds it: the run stops before its next chunk, exit 2, and its resume NEW (with the run's --yes and --max-cost) ends the job", async () => {
    const journal = join(dir, 'job.jsonl');
    const moved = join(dir, 'moved.jsonl');
    // Chunk 2's answer is lost after its task was made; while A checks for it, the journal is renamed.
    const argv = ['create', S, ...ITEMS, '--chunk-size', '1', '--journal', journal, '-q', '-y', '--max-cost', '100'];
    const rename = () => {
      renameSync(journal, moved);
      return undefined;
    };
    const { a } = await whileARuns(argv, rename, 'reset-after');
    expect(a.code, a.stderr).toBe(2);
    expect(a.stderr).toContain(
      `error: the journal ${journal} was renamed or removed while this run held it: stopped before sending chunk 3\n`,
    );
    // As every resume hint of a stopped run: the --yes and --max-cost it was given, so it runs as printed in a script.
    expect(a.stderr).toContain(`Continue the job by its new name: taskctl resume ${moved} --yes --max-cost 100\n`);
    // Chunks 1 and 2 have their tasks; 3 and 4 were never sent.
    expect(await itemCounts()).toEqual({ 'a.com': 1, 'b.com': 1 });
    const resumed = await run('a', ['resume', moved, '--yes', '--max-cost', '100', '-q']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await itemCounts()).toEqual({ 'a.com': 1, 'b.com': 1, 'c.com': 1, 'd.com': 1 });
  });

  it('renamed before the first chunk left (while the list was read): the hint keeps --yes, and runs as printed', async () => {
    const journal = join(dir, 'job.jsonl');
    const moved = join(dir, 'moved.jsonl');
    /** Renames the journal as the first task list is asked for: the run holds its job, nothing sent yet. */
    class RenameAtList extends Agent {
      private renamed = false;
      override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
        if (!this.renamed && options.method === 'GET' && /\/tasks(\?|$)/.test(options.path)) {
          this.renamed = true;
          renameSync(journal, moved);
        }
        return super.dispatch(options, handler);
      }
    }
    const dispatcher = new RenameAtList();
    try {
      const argv = ['create', S, ...ITEMS, '--chunk-size', '1', '--journal', journal, '-q', '-y'];
      const a = await runTaskctl(argv, { env: world.env, clock: world.clock, home: join(dir, 'a'), dispatcher });
      expect(a.code, a.stderr).toBe(2);
      expect(a.stderr).toContain('held it: stopped before sending chunk 1\n');
      expect(a.stderr.endsWith(`Continue the job by its new name: taskctl resume ${moved} --yes\n`)).toBe(true);
    } finally {
      await dispatcher.close();
    }
    expect(await world.tasks()).toEqual([]);
    const resumed = await run('a', ['resume', moved, '--yes', '-q']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await itemCounts()).toEqual({ 'a.com': 1, 'b.com': 1, 'c.com': 1, 'd.com': 1 });
  });

  it('a journal renamed (mv) in its directory while its run holds it: a run through the new name is exit 2 naming the holder', async () => {
    const journal = join(dir, 'job.jsonl');
    const moved = join(dir, 'moved.jsonl');
    const argv = ['create', S, ...ITEMS, '--chunk-size', '1', '--journal', journal, '-q'];
    const { a, b } = await whileARuns(argv, () => {
      renameSync(journal, moved);
      return ['resume', moved, '-q'];
    });
    expect(b?.code, b?.stderr).toBe(2);
    expect(b?.stderr).toContain(
      `error: the job in ${moved} is in use by another taskctl (process ${process.pid} on this machine) through its earlier name ${journal}`,
    );
    expect(b?.stderr).toMatch(/Wait for that run to end/);
    expect(a.code, a.stderr).toBe(9); // chunk 2 in doubt, chunks 3 and 4 never sent
    const resumed = await run('a', ['resume', moved, '-q']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await itemCounts()).toEqual({ 'a.com': 1, 'b.com': 1, 'c.com': 1, 'd.com': 1 });
  });

  it('a journal moved to another directory while its run holds it, resumed there under another state directory: exit 2 naming the holder', async () => {
    const journal = join(dir, 'job.jsonl');
    const elsewhere = join(dir, 'elsewhere');
    const moved = join(elsewhere, 'job.jsonl');
    mkdirSync(elsewhere);
    // The same user (the same cache directory), another state directory: no lock of B's meets A's.
    const otherState = { ...world.env, TASKCTL_STATE_DIR: join(dir, 'other-state') };
    const argv = ['create', S, ...ITEMS, '--chunk-size', '1', '--journal', journal, '-q'];
    let b: RunResult | undefined;
    const { a } = await whileARuns(
      argv,
      () => {
        renameSync(journal, moved);
        return undefined;
      },
      'reset-before',
      async () => {
        b = await runTaskctl(['resume', moved, '-q'], { env: otherState, clock: world.clock, home: join(dir, 'a') });
      },
    );
    expect(b?.code, b?.stderr).toBe(2);
    expect(b?.stderr).toContain(
      `error: job ${/job (j-[0-9a-z]+)/.exec(a.stderr)?.[1]} is in use by another taskctl (process ${process.pid} on this machine) through its journal ${journal}; nothing was sent\n`,
    );
    expect(b?.stderr).toMatch(/Wait for that run to end/);
    // A stops before its next chunk (its journal was moved): chunk 1 has its task, chunk 2 is in doubt.
    expect(a.code, a.stderr).not.toBe(0);
    expect(await itemCounts()).toEqual({ 'a.com': 1 });
    const resumed = await runTaskctl(['resume', moved, '-q'], {
      env: otherState,
      clock: world.clock,
      home: join(dir, 'a'),
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await itemCounts()).toEqual({ 'a.com': 1, 'b.com': 1, 'c.com': 1, 'd.com': 1 });
  });
});

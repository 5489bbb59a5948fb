/**
 * A create without a journal (its state directory cannot be written) stopped while a chunk's request may have landed,
 * or whose stdout went away part-way: the hint names that chunk (its items) and how to find whether it made a task,
 * apart from the chunks that have none, so that following it word for word creates each item exactly once, also from
 * an input with repeated lines (the numbers say what they count).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { worldEachTest, type World } from '../sandbox-world.js';
import { ctrlCWhen } from '../../../clock.js';
import { runTaskctl, type RunOptions } from '../run-in-process.js';
import { runWithBrokenStdout } from '../broken-stdout.js';

const S = 'domain_check_availability';
const ITEMS = Array.from({ length: 30 }, (_, i) => `ro${i + 1}.example.com`);
/** The input as typed: ITEMS with lines repeated inside the chunks (line 13 repeats line 3, line 26 line 15). */
const INPUT = [...ITEMS.slice(0, 12), ITEMS[2]!, ...ITEMS.slice(12, 24), ITEMS[14]!, ...ITEMS.slice(24)];
/** A line `--skip-invalid` drops: not a domain. */
const INVALID = 'not a domain';
let world: World;
let dir: string;
worldEachTest('taskctl-doubt-', (w, d) => ((world = w), (dir = d)));

/** A state directory that is a file: the create goes on without a journal. */
function run(argv: string[], options: Omit<RunOptions, 'env' | 'home'> = {}) {
  writeFileSync(join(dir, 'state-file'), '');
  return runTaskctl(argv, {
    env: { ...world.env, TASKCTL_STATE_DIR: join(dir, 'state-file') },
    clock: world.clock,
    home: dir,
    ...options,
  });
}

/** Every item of the world's tasks, each with how many tasks hold it. */
const itemCounts = () => world.itemCounts();

/**
 * The items `from`–`to` (numbered from 1) a hint names, checked against their first and last item as it names them:
 * lines of the input, unless the hint says its numbers count each distinct item once, or leave invalid items out.
 */
function itemsNamed(hint: string, pattern: RegExp, input: readonly string[] = INPUT): string[] {
  const match = pattern.exec(hint);
  expect(match, hint).not.toBeNull();
  const [, from, to, first, last] = match!;
  const valid = /not counted: .*invalid items? skipped/.test(hint) ? input.filter((item) => item !== INVALID) : input;
  const numbered = hint.includes('numbered as sent: each distinct item once') ? [...new Set(valid)] : valid;
  const items = numbered.slice(Number(from) - 1, Number(to));
  expect([items[0], items.at(-1)]).toEqual([first, last]);
  return items;
}

it.each([
  // Ctrl-C while the lost answer of chunk 2 is checked for: exit 130.
  ['interrupted', 130, (controller: AbortController) => ctrlCWhen(world.clock, controller, (ms) => ms >= 1500)],
  // The task list never answers, so the check cannot prove anything: exit 9.
  ['unsettled', 9, () => world.clock],
])('%s with chunk 2 in doubt: the hint names it, and following it creates every item once', async (_, code, clock) => {
  // Chunk 1 goes through; chunk 2's task is made but its answer is lost, and the task list cannot be read after.
  await world.fault({ method: 'POST', path: '/tasks', kind: 'delay', delayMs: 0 });
  await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-after' });
  await world.fault({ method: 'GET', path: '/tasks', kind: 'delay', delayMs: 0, count: 2 });
  await world.fault({ method: 'GET', path: '/tasks', kind: 'status', status: 503, count: 10_000 });
  const controller = new AbortController();
  const result = await run(['create', S, ...INPUT, '--chunk-size', '10', '-y', '-q'], {
    clock: clock(controller),
    signal: controller.signal,
  });
  await world.clearFaults();
  expect(result.code, result.stderr).toBe(code);
  expect(await world.tasks()).toHaveLength(2);
  const [first] = result.stdout.trim().split('\n');
  const hint = result.stderr;
  expect(hint).not.toMatch(/create the rest with the items of no task above/);

  // Follow the advice: look for the chunk in doubt's task as it says, then create what has no task.
  const doubt = itemsNamed(hint, /chunk 2 of 3 \(items (\d+)–(\d+), (\S+) to (\S+)\) may have made a task/);
  const rest = itemsNamed(hint, /[Ii]tems (\d+)–(\d+) \((\S+) to (\S+)\) have no task/);
  const look = /`(taskctl list [^`]+)`/.exec(hint)?.[1];
  expect(look, hint).toBeDefined();
  const listed = await run([...look!.split(' ').slice(1), '-o', 'json']);
  expect(listed.code, listed.stderr).toBe(0);
  const found = (JSON.parse(listed.stdout) as Array<{ id: number; total_items: number }>).filter(
    (task) => String(task.id) !== first && task.total_items === doubt.length,
  );
  expect(found).toHaveLength(1); // the task chunk 2 made
  const again = await run(['create', S, ...rest, '-y', '-q']);
  expect(again.code, again.stderr).toBe(0);

  await expectEachItemOnce();
});

async function expectEachItemOnce(): Promise<void> {
  const counts = await itemCounts();
  expect([...counts.keys()].sort()).toEqual([...ITEMS].sort());
  expect([...counts.values()].every((n) => n === 1)).toBe(true);
}

it('stdout lost after chunk 1: the hint names the items with no task, and following it creates every item once', async () => {
  writeFileSync(join(dir, 'state-file'), '');
  // An invalid line skipped before chunk 3's items: numbered as lines, those would be off by one more.
  const input = [...INPUT.slice(0, 20), INVALID, ...INPUT.slice(20)];
  const { code, stderr: hint } = await runWithBrokenStdout(
    ['create', S, ...input, '--chunk-size', '10', '--skip-invalid', '-y', '-q'],
    {
      okWrites: 1,
      env: {
        ...world.env,
        TASKCTL_CONFIG_DIR: join(dir, 'config'),
        TASKCTL_CACHE_DIR: join(dir, 'cache'),
        TASKCTL_STATE_DIR: join(dir, 'state-file'),
      },
      clock: world.clock,
    },
  );
  expect(code, hint).toBe(14);
  const created = await world.tasks();
  expect(created.length).toBeLessThan(3);
  expect(hint).not.toMatch(/create the rest with the items of no task above/);
  const rest = itemsNamed(hint, /[Ii]tems (\d+)–(\d+) \((\S+) to (\S+)\) have no task: create those/, input);
  const again = await run(['create', S, ...rest, '-y', '-q']);
  expect(again.code, again.stderr).toBe(0);
  await expectEachItemOnce();
});

/**
 * A `--reuse-window` create that reused a task for one chunk (and created others), then stopped: its stop line counts
 * both as what they are (`created 3 and reused 1 of 4 tasks`), never the reused task as one it created.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { withClosedStdout, worldEachTest, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-stopped-reused-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[]) => world.run(argv, { home: dir });
const ITEMS = ['r-a.com', 'r-b.com', 'r-c.com', 'r-d.com', 'r-e.com', 'r-f.com', 'r-g.com', 'r-h.com'];
const create = ['create', S, ...ITEMS, '--chunk-size', '2', '--reuse-window', '1h', '-y', '-q'];

/** Task 1: the first chunk's items, created earlier. */
async function earlier(): Promise<void> {
  const first = await run(['create', S, ...ITEMS.slice(0, 2), '-y', '-q']);
  expect(first.code, first.stderr).toBe(0);
}

it('its stdout lost: `created 3 and reused 1 of 4 tasks`', async () => {
  await earlier();
  const result = await withClosedStdout(world, create, dir, 3);
  expect(result.code, result.stderr).toBe(14);
  expect(result.stderr).toContain(
    'cannot write the output (the reader went away): created 3 and reused 1 of 4 tasks: 1 2 3 4\n',
  );
});

it('the balance short of the rest: `reused 1 of 4 tasks before that`, none of them created; no job kept, the same create reuses it again', async () => {
  await earlier();
  const jobs = () => readdirSync(join(dir, 'state', 'jobs')).filter((name) => name.endsWith('.jsonl'));
  const before = jobs();
  await world.setBalance(2);
  const result = await run(create);
  expect(result.code, result.stderr).toBe(6);
  expect(result.stderr).toContain('nothing was created\nreused 1 of 4 tasks before that: 1\n');
  // Refused by the money guard, the run recorded nothing (the reused task neither): no job to resume.
  expect(result.stderr).toMatch(/Top up the balance, or send fewer items\.\n$/);
  expect(result.stderr).not.toContain('taskctl jobs');
  expect(jobs()).toEqual(before);
  await world.setBalance(100);
  const again = await run(create);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stdout).toMatch(/^1\n/);
  const counts = await world.itemCounts();
  for (const item of ITEMS) expect(counts.get(item), item).toBe(1);
});

it('its progress lines count them apart too: `3 created and 1 reused of 4 tasks`', async () => {
  await earlier();
  const result = await run(create.filter((arg) => arg !== '-q'));
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toContain('chunk 1 of 4: 1 reused of 4 tasks; 2 items and 0 coins by this run\n');
  expect(result.stderr).toContain('chunk 4 of 4: 3 created and 1 reused of 4 tasks; 8 items and 6 coins by this run\n');
  expect(result.stderr).not.toMatch(/4 of 4 tasks created/);
});

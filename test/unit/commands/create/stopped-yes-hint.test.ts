/**
 * A stopped `create` that was told how to spend without a question (`-y`, or `--max-cost` covering it) prints a resume
 * that carries the same flags: run verbatim where it was printed (a script, CI: no terminal), above confirm-above, it
 * continues the job instead of being refused for confirmation (exit 2).
 */
import { expect, it } from 'vitest';
import { ctrlCAtFirstLongWait, worldEachTest, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-stopped-yes-', (w, d) => ((world = w), (dir = d)));

/** `flags` on a create of two chunks stopped by Ctrl-C with chunk 1 in doubt; the resume its last line prints. */
async function stoppedHint(items: string[], flags: string[]): Promise<string> {
  expect((await world.run(['config', 'set', 'confirm-above', '1'], { home: dir })).code).toBe(0);
  await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-before' });
  const stopped = await ctrlCAtFirstLongWait(world, ['create', S, ...items, '--chunk-size', '1', '-q', ...flags], dir);
  expect(stopped.code, stopped.stderr).toBe(130);
  await world.clearFaults();
  return /^Continue it with: taskctl (.+)$/m.exec(stopped.stderr)?.[1] ?? stopped.stderr;
}

async function resumedOnce(hint: string, items: string[]): Promise<void> {
  const resumed = await world.run(hint.split(' '), { home: dir });
  expect(resumed.code, resumed.stderr).toBe(0);
  const counts = await world.itemCounts();
  for (const item of items) expect(counts.get(item), item).toBe(1);
}

it('-y: the hint is `taskctl resume J --yes`, and it runs verbatim with no terminal', async () => {
  const items = ['yh-a.com', 'yh-b.com'];
  const hint = await stoppedHint(items, ['-y']);
  expect(hint).toMatch(/^resume j-[0-9a-z]+ --yes$/);
  await resumedOnce(hint, items);
});

it('--max-cost: the hint carries it, and it runs verbatim with no terminal', async () => {
  const items = ['ym-a.com', 'ym-b.com'];
  const hint = await stoppedHint(items, ['--max-cost', '1000']);
  expect(hint).toMatch(/^resume j-[0-9a-z]+ --max-cost 1000$/);
  await resumedOnce(hint, items);
});

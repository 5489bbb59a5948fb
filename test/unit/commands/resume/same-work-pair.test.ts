/**
 * A create stopped with its chunk 2 in doubt (the request landed, its answer was lost), then its `--reuse-window`
 * re-run stopped by Ctrl-C while it waited for that request to land: the re-run continued the stopped job rather than
 * starting a second job of the same items (core/submit/same-work.ts), so following the printed hints, then the bare
 * `resume`, buys every item once; never two interrupted jobs whose resumes each buy what the other holds.
 */
import { expect, it } from 'vitest';
import { ctrlCAtFirstLongWait, worldEachTest, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
const ITEMS = Array.from({ length: 6 }, (_, i) => `pair-${i + 1}.com`);
let world: World;
let dir: string;
worldEachTest('taskctl-same-work-pair-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[]) => world.run(argv, { home: dir });
const create = ['create', S, ...ITEMS, '--chunk-size', '2', '-y', '-q'];

/** `argv` stopped by Ctrl-C at its first wait of a second or more: exit 130; the id its hint names. */
async function ctrlCAtFirstWait(argv: string[]): Promise<string> {
  const stopped = await ctrlCAtFirstLongWait(world, argv, dir);
  expect(stopped.code, stopped.stderr).toBe(130);
  const hint = /taskctl resume (j-[0-9a-z]+)(?: --yes)?$/m.exec(stopped.stderr)?.[1];
  expect(hint, stopped.stderr).toBeDefined();
  return hint ?? '';
}

it('the re-run stopped in its landing wait leaves one job: its hint, then the bare `resume`, pay once', async () => {
  // Chunk 1 created (its POST slowed a millisecond), chunk 2's POST acted on and its answer lost.
  await world.fault({ method: 'POST', path: '/tasks', kind: 'delay', delayMs: 1 });
  await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-after' });
  await ctrlCAtFirstWait(create);
  await world.clearFaults();
  const second = await ctrlCAtFirstWait([...create, '--reuse-window', '1h']);
  const resumed = await run(['resume', second, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  const bare = await run(['resume', '-y']);
  expect(bare.code, bare.stderr).toBe(0);
  const counts = await world.itemCounts();
  for (const item of ITEMS) expect(counts.get(item), item).toBe(1);
});

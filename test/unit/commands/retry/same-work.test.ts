/**
 * A `retry` stopped cleanly part-way (its stdout closed after its first task: nothing in doubt), then the same retry
 * again, as the ledger section describes ("a re-run at once"): the re-run is that retry's work again (the same items in
 * the same chunks) and continues it, so the chunks the stopped retry created, tasks whose items failed again, are not
 * bought a third time (core/submit/same-work.ts).
 */
import { expect, it } from 'vitest';
import { withClosedStdout, worldEachTest, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
const FAILING = Array.from({ length: 6 }, (_, i) => `fail-${i + 1}.sw.com`);
const OK = ['ok-1.sw.com', 'ok-2.sw.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-retry-same-work-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[]) => world.run(argv, { home: dir });

it('the same retry after a stopped one continues it: each failed item is retried once', async () => {
  const created = await run(['create', S, ...FAILING, ...OK, '--chunk-size', '2', '-y', '-q', '--wait']);
  expect(created.code, created.stderr).toBe(11);
  const job = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(created.stderr)?.[1] ?? '';
  expect(job).not.toBe('');
  const retry = ['retry', '--job', job, '-y', '-q'];
  const first = await withClosedStdout(world, retry, dir, 1);
  expect(first.code, first.stderr).toBe(14);
  const stopped = /Continue it with: taskctl resume (j-[0-9a-z]+)(?: --yes)?$/m.exec(first.stderr)?.[1] ?? '';
  expect(stopped).not.toBe('');

  const again = await run(retry);
  expect(again.code, again.stderr).toBe(0);
  const counts = await world.itemCounts();
  for (const item of FAILING) expect(counts.get(item), item).toBe(2); // the create and one retry
  for (const item of OK) expect(counts.get(item), item).toBe(1);
  expect(again.stderr).toMatch(
    new RegExp(`^continuing job ${stopped}, started \\S+ and stopped part-way: the same items`, 'm'),
  );
  const bare = await run(['resume']);
  expect(bare.code, bare.stderr).toBe(0);
  expect(bare.stderr).toContain('no interrupted job to resume');
  expect((await world.itemCounts()).get(FAILING[0] ?? '')).toBe(2);
});

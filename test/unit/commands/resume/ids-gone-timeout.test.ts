/**
 * `resume J --wait --timeout D` on a job whose tasks the service no longer has (restarted without its state, its ids
 * not reached again): the first id not found makes the wait read the job's other earlier chunks, so that every lost
 * chunk is recorded in one write (submit/summary.ts `earlierChunks`). Those reads keep to the wait's deadline: what
 * was found by then is recorded and said (exit 8), and the next `resume --wait` reads the rest.
 */
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { journalLines } from '../journal-lines.js';
import { restartWithoutState, worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-ids-gone-timeout-', (w, d) => ((world = w), (dir = d)));
const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });

it('--timeout 2s: the reads of the chunks left end at the deadline, and the next resume --wait records the rest', async () => {
  const items = Array.from({ length: 15 }, (_, i) => `g${i}.com`);
  const input = join(dir, 'in.txt');
  writeFileSync(input, `${items.join('\n')}\n`);
  const created = await run(['create', S, '-f', input, '--chunk-size', '1', '-y']);
  expect(created.code, created.stderr).toBe(0);
  const job = /job (j-[0-9a-z]+)/.exec(created.stderr)?.[1] ?? '';
  const journal = join(dir, 'state', 'jobs', `${job}.jsonl`);
  // 10 requests a minute, stated in its headers: the 14 reads of the chunks left take a minute and more.
  await restartWithoutState(world, 3_600_000, undefined, 10);

  const start = world.clock.now();
  const first = await run(['resume', job, '--wait', '--timeout', '2s']);
  expect(first.code, first.stderr).toBe(8);
  // Past the deadline by no more than a read's room, not the minute and more 14 reads at the rate limit would take.
  expect(world.clock.now() - start).toBeLessThan(5_000);
  const recorded = journalLines(journal).filter((r) => r.type === 'lost').length;
  expect(recorded).toBeGreaterThan(0);
  expect(recorded).toBeLessThan(15);

  const second = await run(['resume', job, '--wait']);
  expect(second.code, second.stderr).toBe(8);
  expect(journalLines(journal).filter((r) => r.type === 'lost')).toHaveLength(15);
  expect((await run(['resume', job, '--wait'])).code).toBe(11);
});

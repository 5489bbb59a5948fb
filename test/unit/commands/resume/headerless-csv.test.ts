/**
 * A job of a CSV read before a header row that is an item was refused (core/items/csv.ts): its journal names no
 * `--column`, and its first run took that row as the header. Its resume reads the file as that run did, so it goes on
 * with the same items (their digest checked), never refused for the rule its first run did not know.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runTaskctl } from '../run-in-process.js';
import { jobStoppedByBalance, worldEachTest, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-headerless-csv-', (w, d) => ((world = w), (dir = d)));

it('a job read from a CSV whose header row is an item, recorded before such a header was refused: resumed as it was read', async () => {
  const file = join(dir, 'domains.csv');
  writeFileSync(file, 'a.com\nb.com\nc.com\nd.com\ne.com\n');
  const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });
  // The way an earlier version read it: the first row the header, the items below it (named here, then forgotten).
  const id = await jobStoppedByBalance(
    world,
    (argv) => run([...argv.slice(0, 2), '-f', file, '--column', 'a.com', ...argv.slice(6)]),
    S,
  );
  const journal = join(dir, 'state', 'jobs', `${id}.jsonl`);
  const [first = '', ...rest] = readFileSync(journal, 'utf8').split('\n');
  const job = JSON.parse(first) as { column: string | null };
  expect(job.column).toBe('a.com');
  // Padded to its length: a journal found shorter than this machine last wrote it is one put back from a copy.
  writeFileSync(journal, [JSON.stringify({ ...job, column: null }).padEnd(first.length), ...rest].join('\n'));
  const resumed = await run(['resume', id, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  const counts = await world.itemCounts();
  expect([...counts.keys()].sort()).toEqual(['b.com', 'c.com', 'd.com', 'e.com']);
  for (const [item, count] of counts) expect(count, item).toBe(1);
});

/**
 * A job started with `--journal FILE` whose file is out of reach for a while (a disk not mounted, a network share
 * down, its directory renamed): `jobs` lists it as unreadable, saying where its journal should be, and `resume ID`
 * names that path; nothing forgets where it is meanwhile, not `jobs`, not a create's clean-up, not TAB. Back in
 * place, the job is listed and resumed as before, each item bought once.
 */
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runTaskctl } from '../run-in-process.js';
import { jobStoppedByBalance, worldEachTest, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-journal-away-', (w, d) => ((world = w), (dir = d)));

it('out of reach for a while: listed as unreadable where it should be, never forgotten; back, resumed, each item once', async () => {
  const disk = join(dir, 'disk');
  mkdirSync(disk);
  const journal = join(disk, 'big.jsonl');
  const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });
  const id = await jobStoppedByBalance(world, (argv) => run([...argv, '--journal', journal]), S);
  renameSync(disk, join(dir, 'away'));
  // Every command that walks the jobs, while it is away.
  const listed = await run(['jobs', '-o', 'json']);
  expect(listed.code, listed.stderr).toBe(0);
  expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id, state: 'unreadable', journal })]);
  expect(listed.stderr).toContain(
    `job ${id}: its journal ${journal} is not there (no such file or directory): put it back`,
  );
  expect((await run(['create', S, 'other.com', '-y', '-q'])).code).toBe(0);
  expect((await run(['__complete', 'jobs'])).code).toBe(0);
  expect((await run(['jobs', '--prune'])).code).toBe(0);
  const named = await run(['resume', id, '-y']);
  expect(named.code).toBe(2);
  expect(named.stderr).toContain(`job ${id}: its journal ${journal} is not there (no such file or directory)`);
  // Back in place: the job as it was, and its printed resume ends it.
  renameSync(join(dir, 'away'), disk);
  const back = JSON.parse((await run(['jobs', '-o', 'json'])).stdout) as Array<{ id: string; state: string }>;
  expect(back.find((row) => row.id === id)?.state).toBe('interrupted');
  const resumed = await run(['resume', id, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  const counts = await world.itemCounts();
  for (const item of ['a.com', 'b.com', 'c.com', 'd.com', 'other.com']) expect(counts.get(item), item).toBe(1);
});

it('gone for good: the way to forget it is named, and followed, the job is gone from `jobs`', async () => {
  const journal = join(dir, 'tmp-journal.jsonl');
  const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });
  const id = await jobStoppedByBalance(world, (argv) => run([...argv, '--journal', journal]), S);
  rmSync(journal);
  const listed = await run(['jobs']);
  const reference = /if it is gone for good, removing (\S+) forgets the job/.exec(
    listed.stderr.replace(/\n/g, ' '),
  )?.[1];
  expect(reference, listed.stderr).toBe(join(dir, 'state', 'jobs', `${id}.ref`));
  rmSync(reference ?? '');
  const after = await run(['jobs', '-o', 'json']);
  expect(JSON.parse(after.stdout)).toEqual([]);
});

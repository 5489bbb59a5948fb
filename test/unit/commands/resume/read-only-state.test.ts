/**
 * A job whose state directory has become read-only (a CI cache restored read-only, a read-only HOME): no run can write
 * its journal or its locks there, so none runs it there meanwhile. The refusal names one way on that works and keeps
 * one place for the job: a writable copy of the state directory, used from then on (docs/behaviour.md#jobs). Followed
 * as printed, it finishes the job with every item paid once. The file system's refusal is played by the lock's write
 * (`journalIo.lock`): a read-only mount cannot be made in a unit test.
 */
import { cpSync, mkdirSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { journalIo } from '../../../../src/store/journal-file.js';
import { jobStoppedByBalance, worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-ro-state-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], env: Record<string, string> = {}) =>
  runTaskctl(argv, { env: { ...world.env, ...env }, clock: world.clock, home: dir });

const stoppedJob = () => jobStoppedByBalance(world, run, S);

/** Runs `argv` with the state directory read-only, as a read-only mount refuses its writes (`journalIo.lock`). */
async function readOnly(state: string, argv: string[]) {
  const lock = journalIo.lock;
  journalIo.lock = (path, content) => {
    if (path.startsWith(`${state}/`)) throw Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' });
    return lock(path, content);
  };
  try {
    return await run(argv);
  } finally {
    journalIo.lock = lock;
  }
}

it('a copy resumed under a read-only state directory: exit 2 naming a writable copy of it, which finishes the job once', async () => {
  const id = await stoppedJob();
  const state = join(dir, 'state');
  expect(readdirSync(join(state, 'jobs'))).toContain(`${id}.jsonl`);
  // The copy the earlier advice named, kept in a directory that can be written.
  mkdirSync(join(dir, 'cp'));
  cpSync(join(state, 'jobs', `${id}.jsonl`), join(dir, 'cp', `${id}.jsonl`));

  const refused = await readOnly(state, ['resume', join(dir, 'cp', `${id}.jsonl`)]);
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr).toContain(`(the state directory ${state} is read-only)`);
  expect(refused.stderr).toMatch(
    new RegExp(
      `\\nContinue it from a writable copy of the state directory, and use only that one for this job from now on: cp -a ${state} NEW && TASKCTL_STATE_DIR=NEW taskctl resume ${id}\\n$`,
    ),
  );
  expect(refused.stderr).not.toMatch(/--journal|a copy of the journal kept/);
  expect(await world.tasks()).toHaveLength(1);

  // As printed.
  const copy = join(dir, 'NEW');
  cpSync(state, copy, { recursive: true });
  const resumed = await run(['resume', id, '-y'], { TASKCTL_STATE_DIR: copy });
  expect(resumed.code, resumed.stderr).toBe(0);
  expect([...(await world.itemCounts()).values()]).toEqual([1, 1, 1, 1]);
});

it('the refusal repeats the spending flags the resume was given: followed word for word in a script, it finishes the job', async () => {
  const id = await stoppedJob();
  const state = join(dir, 'state');
  const refused = await readOnly(state, ['resume', id, '--yes', '--max-cost', '500']);
  expect(refused.code, refused.stderr).toBe(2);
  const hint = /cp -a (\S+) NEW && TASKCTL_STATE_DIR=NEW taskctl (resume .*)\n$/.exec(refused.stderr);
  expect(hint?.[2], refused.stderr).toBe(`resume ${id} --yes --max-cost 500`);

  const copy = join(dir, 'NEW');
  cpSync(state, copy, { recursive: true });
  const resumed = await run(hint?.[2]?.split(' ') ?? [], { TASKCTL_STATE_DIR: copy });
  expect(resumed.code, resumed.stderr).toBe(0);
  expect([...(await world.itemCounts()).values()]).toEqual([1, 1, 1, 1]);
});

it("the hint followed, then the original resumed once it can be written: it takes the copy's tasks and pays nothing", async () => {
  const id = await stoppedJob();
  const state = join(dir, 'state');
  const refused = await readOnly(state, ['resume', id]);
  expect(refused.code, refused.stderr).toBe(2);
  // As printed: the copy finishes the job.
  const copy = join(dir, 'NEW');
  cpSync(state, copy, { recursive: true });
  const resumed = await run(['resume', id, '-y'], { TASKCTL_STATE_DIR: copy });
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(await world.tasks()).toHaveLength(4);
  // The original, writable again (or a shell without the variable), still lists the job as interrupted; its resume
  // reads the copy this machine last ran the job from, takes its tasks, and sends nothing.
  const again = await run(['resume', id, '-y']);
  expect(again.code, again.stderr).toBe(0);
  expect(await world.tasks()).toHaveLength(4);
  expect([...(await world.itemCounts()).values()]).toEqual([1, 1, 1, 1]);
  expect(again.stderr).not.toMatch(/chunk \d of 4: /);
  expect(again.stderr).toContain(
    `job ${id}: the tasks of 3 chunks taken from ${realpathSync(join(copy, 'jobs', `${id}.jsonl`))}, where this job was last run (they are not bought again)\n`,
  );
  const bare = await run(['resume', '-y']);
  expect(bare.code, bare.stderr).toBe(0);
  expect(bare.stderr).toContain('no interrupted job to resume');
  expect(await world.tasks()).toHaveLength(4);
});

it("the copy the job was last run from is gone: the original's resume sends nothing, and --reuse-window goes on paying nothing twice", async () => {
  const id = await stoppedJob();
  const state = join(dir, 'state');
  const copy = join(dir, 'NEW');
  cpSync(state, copy, { recursive: true });
  const resumed = await run(['resume', id, '-y'], { TASKCTL_STATE_DIR: copy });
  expect(resumed.code, resumed.stderr).toBe(0);
  rmSync(copy, { recursive: true });
  const refused = await run(['resume', id, '-y']);
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr).toContain(
    `error: job ${id} was last run from ${join(realpathSync(dir), 'NEW', 'jobs', `${id}.jsonl`)}, which is gone: what that run created is not known here; nothing was sent\n`,
  );
  const way = /\n(?:.*: )?(taskctl resume .*--reuse-window \S+.*)\n$/.exec(refused.stderr)?.[1] ?? '';
  expect(way).toMatch(new RegExp(`^taskctl resume ${id} .*--reuse-window`));
  expect(await world.tasks()).toHaveLength(4);
  const onward = await run(way.split(' ').slice(1));
  expect(onward.code, onward.stderr).toBe(0);
  expect(await world.tasks()).toHaveLength(4);
  expect([...(await world.itemCounts()).values()]).toEqual([1, 1, 1, 1]);
});

/**
 * A job whose state directory has become read-only (a CI cache restored read-only, a read-only HOME): no run can write
 * its journal or its locks there, so none runs it there meanwhile. The refusal names one way on that works and keeps
 * one place for the job: a writable copy of the state directory, used from then on (docs/behaviour.md#jobs). Followed
 * as printed, it finishes the job with every item paid once. The file system's refusal is played by the lock's write
 * (`journalIo.lock`): a read-only mount cannot be made in a unit test.
 */
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { journalIo } from '../../../../src/store/journal-file.js';
import { worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../harness.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-ro-state-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], env: Record<string, string> = {}) =>
  runTaskctl(argv, { env: { ...world.env, ...env }, clock: world.clock, home: dir });

it('a copy resumed under a read-only state directory: exit 2 naming a writable copy of it, which finishes the job once', async () => {
  // A job of four chunks stopped after chunk 1 (its balance ran out), in the state directory.
  await world.setBalance(1);
  await world.fault({ method: 'GET', path: '/balance', kind: 'status', status: 503, count: 100 });
  const stopped = await run(['create', S, 'a.com', 'b.com', 'c.com', 'd.com', '--chunk-size', '1', '-y']);
  expect(stopped.code, stopped.stderr).toBe(6);
  await world.clearFaults();
  await world.setBalance(100);
  const id = /taskctl resume (j-[0-9a-z]+)/.exec(stopped.stderr)?.[1] ?? '';
  const state = join(dir, 'state');
  expect(readdirSync(join(state, 'jobs'))).toContain(`${id}.jsonl`);
  // The copy the earlier advice named, kept in a directory that can be written.
  mkdirSync(join(dir, 'cp'));
  cpSync(join(state, 'jobs', `${id}.jsonl`), join(dir, 'cp', `${id}.jsonl`));

  const lock = journalIo.lock;
  journalIo.lock = (path, content) => {
    if (path.startsWith(`${state}/`)) throw Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' });
    return lock(path, content);
  };
  let refused;
  try {
    refused = await run(['resume', join(dir, 'cp', `${id}.jsonl`)]);
  } finally {
    journalIo.lock = lock;
  }
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

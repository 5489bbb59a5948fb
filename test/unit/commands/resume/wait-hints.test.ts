/**
 * A hint that names `taskctl resume` carries the flags of the run that printed it which decide the exit code and the
 * confirmation (`--wait` and its exit-code flags, `--yes`, `--max-cost`): followed as printed, it ends as that run would
 * have (docs/behaviour.md#jobs). Every item here fails, so a wait ends in exit 11.
 */
import { expect, it } from 'vitest';
import { ctrlCWhen } from '../../../clock.js';
import { ctrlCAtFirstLongWait, worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
const ITEMS = ['fail-a.com', 'fail-b.com', 'fail-c.com', 'fail-d.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-wait-hints-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });

/** `argv`, its chunk 2's answer lost, stopped by Ctrl-C 1 s into the check of it (exit 130): its stderr. */
async function ctrlCOnChunk2(argv: string[]): Promise<string> {
  await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-after', count: 1 });
  const stopped = await ctrlCAtFirstLongWait(world, argv, dir);
  expect(stopped.code, stopped.stderr).toBe(130);
  await world.clearFaults();
  return stopped.stderr;
}

/** The command a `Continue it with:` or `Finish it first:` hint names, as words. */
const hinted = (stderr: string): string[] =>
  (/(?:Continue it with|Finish it first): taskctl (resume .*)$/m.exec(stderr)?.[1] ?? '').split(' ');

it('an interrupted create --wait hints a resume with --wait: followed as printed, exit 11 as wait --job gives', async () => {
  const stderr = await ctrlCOnChunk2(['create', S, ...ITEMS, '--chunk-size', '2', '-y', '--wait']);
  const id = /taskctl resume (j-[0-9a-z]+)/.exec(stderr)?.[1] ?? '';
  expect(hinted(stderr)).toEqual(['resume', id, '--yes', '--wait']);
  const followed = await run(hinted(stderr));
  expect(followed.code, followed.stderr).toBe(11);
  expect((await run(['wait', '--job', id, '-q'])).code).toBe(11);
});

it('an interrupted resume --wait --allow-item-failures hints the same resume; wait --job and retry --job on the job left incomplete carry their own flags', async () => {
  const stderr = await ctrlCOnChunk2(['create', S, ...ITEMS, '--chunk-size', '2', '-y']);
  const id = /taskctl resume (j-[0-9a-z]+)/.exec(stderr)?.[1] ?? '';
  // Stopped while it checks the task list for chunk 2 (nothing sent by it).
  const controller = new AbortController();
  const resumed = await runTaskctl(['resume', id, '--wait', '--allow-item-failures'], {
    env: world.env,
    home: dir,
    clock: ctrlCWhen(world.clock, controller, () => true),
    signal: controller.signal,
  });
  expect(resumed.code, resumed.stderr).toBe(130);
  expect(hinted(resumed.stderr)).toEqual(['resume', id, '--wait', '--allow-item-failures']);
  const waited = await run(['wait', '--job', id, '--allow-item-failures']);
  expect(waited.code, waited.stderr).toBe(2);
  expect(hinted(waited.stderr)).toEqual(['resume', id, '--wait', '--allow-item-failures']);
  const retried = await run(['retry', '--job', id, '--yes', '--max-cost', '10']);
  expect(retried.code, retried.stderr).toBe(2);
  expect(hinted(retried.stderr)).toEqual(['resume', id, '--yes', '--max-cost', '10', '--wait']);
  // Followed as printed: every item failed, allowed, so 0, as the interrupted resume would have ended.
  const followed = await run(hinted(resumed.stderr));
  expect(followed.code, followed.stderr).toBe(0);
});

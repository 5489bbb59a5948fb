/**
 * A journal written before the items digest and created_at were recorded (its `send` records without `items_digest`
 * or `server_offset`, its `created` records without `created_at`), stopped with chunk 4 in doubt, and the service's ids
 * started again before its resume (a sandbox restarted without --state): chunk 4's task gets an id an earlier chunk
 * names, and nothing in the journal tells the two apart. The resume never sends the chunk again on that guess: exit 9
 * names the chunk, the task and both ways on, and each of them, followed as printed, pays for no item twice.
 */
import { expect, it } from 'vitest';
import { jobStoppedAtChunk4, journalLines, type JournalLine } from '../journal-lines.js';
import { restartWithoutState, worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl, type RunResult } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-no-digest-restart-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });
const ITEMS = ['m1.com', 'm2.com', 'm3.com', 'm4.com', 'm5.com', 'm6.com'];

/** A record as the oldest journals wrote it: no items digest or server offset in a send, no created_at in a created. */
function oldest(record: JournalLine): JournalLine {
  const { items_digest: _digest, server_offset: _offset, ...send } = record;
  const { created_at: _created, ...created } = record;
  return record.type === 'send' ? send : record.type === 'created' ? created : record;
}

/** The job, restarted service, and the first resume, whose chunk-4 create is answered and the answer lost. */
async function firstResume(): Promise<{ job: string; journal: string; first: RunResult }> {
  const { job, journal } = await jobStoppedAtChunk4(run, dir, S, ITEMS, oldest);
  expect(journalLines(journal).some((record) => 'items_digest' in record)).toBe(false);
  await restartWithoutState(world);
  await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-after' });
  const first = await run(['resume', job, '--yes']);
  await world.clearFaults();
  return { job, journal, first };
}

/** The command of the hint's `which` way (`--adopt` or `--resend`), as printed. */
function hinted(result: RunResult, which: '--adopt' | '--resend'): string[] | undefined {
  const pattern = new RegExp(
    `taskctl (resume \\S+(?: --\\S+(?: [^-\\s]\\S*)?)*? ${which} \\S+?)(?:[,;:]|\\s\\(|$)`,
    'm',
  );
  return pattern.exec(result.stderr)?.[1]?.split(' ');
}

async function expectEachItemAtMostOnce(): Promise<void> {
  for (const [item, count] of await world.itemCounts()) expect(count, item).toBe(1);
}

it("the task under chunk 1's id cannot be told from chunk 4's: exit 9 naming both, nothing sent again", async () => {
  const { job, first } = await firstResume();
  expect(first.code, first.stderr).toBe(9);
  expect(first.stderr).toContain(
    'and chunk 1 of this job names task 1 too: the journal keeps nothing to tell them apart',
  );
  expect(first.stderr).toContain(
    `Look at it (taskctl show 1): chunk 1 names task 1 too.\n` +
      `If it holds chunk 4's items, the service's ids started again (chunk 1's task is then counted lost, not bought again): taskctl resume ${job} --yes --adopt 4=1\n` +
      `If not: taskctl resume ${job} --yes --resend 4`,
  );
  expect(await world.posts()).toBe(1);
  // A bare resume asks again, and stops the same way: it never pays again on that guess.
  const again = await run(['resume', job, '--yes']);
  expect(again.code, again.stderr).toBe(9);
  expect(await world.posts()).toBe(1);
});

it('its --adopt, followed as printed at each stop, ends the job with every item paid once', async () => {
  const { job, journal, first } = await firstResume();
  let last = first;
  for (let i = 0; i < 5 && last.code === 9; i++) {
    const argv = hinted(last, '--adopt');
    expect(argv, last.stderr).toBeDefined();
    last = await run(argv ?? []);
  }
  expect(last.code, last.stderr).toBe(0);
  await expectEachItemAtMostOnce();
  expect((await world.itemCounts()).size).toBe(3);
  expect(await world.posts()).toBe(3);
  expect(
    journalLines(journal)
      .filter((record) => record.type === 'lost')
      .map((record) => record.chunk),
  ).toEqual([1, 2, 3]);
  const after = await run(['resume', job]);
  expect(after.code, after.stderr).toBe(0);
  expect(await world.posts()).toBe(3);
});

it('its --resend, followed as printed, pays for chunk 4 once more at most: no stop after it offers it again', async () => {
  const { job, first } = await firstResume();
  const argv = hinted(first, '--resend');
  expect(argv, first.stderr).toEqual(['resume', job, '--yes', '--resend', '4']);
  let last = await run(argv ?? []);
  expect(await world.posts()).toBe(2);
  // Task 2, the answer to that resend, is under chunk 2's id: exit 9 again, now offering only --adopt.
  expect(last.code, last.stderr).toBe(9);
  expect(last.stderr).toContain('chunk 4 was sent again once (--resend)');
  expect(hinted(last, '--resend')).toBeUndefined();
  const bare = await run(['resume', job, '--yes']);
  expect(bare.code, bare.stderr).toBe(9);
  expect(await world.posts()).toBe(2);
  for (let i = 0; i < 5 && last.code === 9; i++) {
    expect(hinted(last, '--resend')?.at(-1), last.stderr).not.toBe('4');
    last = await run(hinted(last, '--adopt') ?? []);
  }
  expect(last.code, last.stderr).toBe(0);
  expect(await world.posts()).toBe(4); // the lost answer's, the resend's, chunks 5 and 6
  const counts = await world.itemCounts();
  expect(counts.get('m4.com')).toBe(2);
  expect([counts.get('m5.com'), counts.get('m6.com')]).toEqual([1, 1]);
});

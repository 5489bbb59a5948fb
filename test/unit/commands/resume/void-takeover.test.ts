/**
 * A re-run that took a stopped job's chunk over, then stopped before sending anything for it (Ctrl-C in its walk, an
 * outage, a refused key; its journal perhaps removed): the takeover is void. The stopped job's resume settles the
 * chunk itself, by its own scan back to its send, and adopts the task its own request made: never "continuing" a job
 * that does not exist, never sending those items again (core/submit/hand-over.ts, coverStands).
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { RunOptions } from '../run-in-process.js';
import { stoppedByCtrlC, worldEachTest, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
const ITEMS = ['void-a.com', 'void-b.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-void-takeover-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], options: Omit<RunOptions, 'env' | 'clock'> = {}) =>
  world.run(argv, { home: dir, ...options });
const journalOf = (id: string) => join(dir, 'state', 'jobs', `${id}.jsonl`);

/** The create stopped by Ctrl-C while its chunk 1's POST, acted on by the service, lost its answer. */
const stoppedJob = () =>
  stoppedByCtrlC(world, ['create', S, ...ITEMS, '--chunk-size', '1', '-y', '-q'], dir, 'reset-after');

/** The takeover record a re-run writes at its reservation, before its walk and POST. */
function handedTo(stopped: string, rerun: string, whole: boolean): void {
  const record = {
    type: 'unknown',
    chunk: 1,
    candidates: [],
    reason: 'handed over',
    covered_by: { job: rerun, chunk: 1, whole },
  };
  appendFileSync(journalOf(stopped), `${JSON.stringify(record)}\n`);
}

async function eachPaidOnce(): Promise<void> {
  const counts = await world.itemCounts();
  for (const item of ITEMS) expect(counts.get(item), item).toBe(1);
}

it.each([
  ['whole, by a re-run whose journal was removed', true, false],
  ['whole, by a re-run that stopped before sending (its journal kept, chunk 1 never sent)', true, true],
  ['one chunk, by a re-run that stopped before sending', false, true],
])('a takeover %s is void: the stopped job adopts its own task, each item paid once', async (_, whole, kept) => {
  const stopped = await stoppedJob();
  const rerun = 'j-zzvoidrerun01';
  if (kept) {
    // The re-run's journal holds its job record only: it was stopped before its first send.
    const [jobLine] = readFileSync(journalOf(stopped), 'utf8').split('\n');
    const record = JSON.parse(jobLine ?? '{}') as Record<string, unknown>;
    writeFileSync(journalOf(rerun), `${JSON.stringify({ ...record, id: rerun })}\n`);
  }
  handedTo(stopped, rerun, whole);
  const jobs = await run(['jobs', '-o', 'json']);
  const rows = JSON.parse(jobs.stdout) as Array<{ id: string; state: string }>;
  expect(rows.find((row) => row.id === stopped)?.state).toBe('interrupted');
  const resumed = await run(['resume', stopped, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).not.toContain('continuing job');
  // What it will do, said first: its own check of the task list, not a task to take from the stopped re-run.
  expect(resumed.stderr).toContain('next: check the task list for chunk 1');
  expect(resumed.stderr).toContain('chunk 1: task 1 was created by the interrupted request');
  await eachPaidOnce();
});

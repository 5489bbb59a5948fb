/**
 * core/job/journaled-job.ts `endShortIfLost` (and resume --wait's summary): a `--job` command that leaves chunks recorded lost out ends in exit 11,
 * settled before its first output. `taskctl show --job J -o ndjson | head -1` ends when its reader goes away, with the
 * outcome known then (output/stdout-guard.ts, as boot runs it): 11 as unbroken, never 0, which would tell
 * `set -o pipefail` that the job's items are all there (as diff's 15 from its first change on).
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runWithReaderGone } from '../../commands/broken-stdout.js';
import { runTaskctl } from '../../commands/run-in-process.js';
import { jobStoppedAtChunk4 } from '../../commands/journal-lines.js';
import { restartWithoutState, worldEachTest, type World } from '../../commands/sandbox-world.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-lost-reader-gone-', (w, d) => ((world = w), (dir = d)));
const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });

/** A finished job of six one-item chunks whose chunks 1–3 a resume recorded lost (the service's ids started again). */
async function lostJob(items: readonly string[]): Promise<string> {
  const { job } = await jobStoppedAtChunk4(run, dir, S, items);
  await restartWithoutState(world);
  const resumed = await run(['resume', job, '--yes']);
  expect(resumed.code, resumed.stderr).toBe(0);
  return job;
}

/**
 * `argv` with stdout's reader gone at the first write, under the bin's guard: the codes the guard ended the run with.
 * The write fails as it is made (`inWrite`), so the code is the one settled before the first output: a real pipe's
 * EPIPE comes later, after work a test cannot count on.
 */
const readerGone = (argv: string[]) =>
  runWithReaderGone(argv, {
    okWrites: 0,
    inWrite: true,
    env: {
      ...world.env,
      TASKCTL_CONFIG_DIR: join(dir, 'config'),
      TASKCTL_CACHE_DIR: join(dir, 'cache'),
      TASKCTL_STATE_DIR: join(dir, 'state'),
    },
    clock: world.clock,
  });

it('show --job, wait --job and watch --job with lost chunks, their reader gone at the first line: 11 as unbroken, not 0', async () => {
  const job = await lostJob(['m1.com', 'm2.com', 'm3.com', 'm4.com', 'm5.com', 'm6.com']);
  for (const argv of [
    ['show', '--job', job, '-o', 'ndjson'],
    ['show', '--job', job, '-o', 'tsv'],
    ['show', '--job', job, '-q'],
    ['wait', '--job', job, '-o', 'tsv'],
    ['watch', '--job', job, '-o', 'tsv'],
  ]) {
    const whole = await run(argv);
    expect(whole.code, `${argv.join(' ')}: ${whole.stderr}`).toBe(11);
    expect(whole.stdout, argv.join(' ')).not.toBe('');
    const gone = await readerGone(argv);
    expect(gone.exits, `${argv.join(' ')}: ${gone.stderr}`).toEqual([11]);
  }
});

it('retry --job with lost chunks, its reader gone at the first line: 11 as unbroken, not 0', async () => {
  // Chunk 5's item fails: something for the retry's dry run to print on stdout (its estimate).
  const job = await lostJob(['m1.com', 'm2.com', 'm3.com', 'm4.com', 'fail-m5.com', 'm6.com']);
  const argv = ['retry', '--job', job, '--dry-run'];
  const whole = await run(argv);
  expect(whole.code, whole.stderr).toBe(11);
  expect(whole.stdout).not.toBe('');
  const gone = await readerGone(argv);
  expect(gone.exits, gone.stderr).toEqual([11]);
});

it('resume --wait of a job with lost chunks, its reader gone at the first line: 11 as unbroken, not 0', async () => {
  const job = await lostJob(['m1.com', 'm2.com', 'm3.com', 'm4.com', 'm5.com', 'm6.com']);
  const argv = ['resume', job, '--wait', '-o', 'tsv'];
  const whole = await run(argv);
  expect(whole.code, whole.stderr).toBe(11);
  expect(whole.stdout).not.toBe('');
  const gone = await readerGone(argv);
  expect(gone.exits, gone.stderr).toEqual([11]);
});

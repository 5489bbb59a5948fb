/**
 * A FIFO (or anything but a regular file) at a job's lock path: the lock reader refuses to open it, never hanging on
 * it. `taskctl jobs` lists the job all the same, with its state, and says on stderr where the odd file is and to remove
 * it (exit 0, `-o json` still one valid document on stdout); `--prune` leaves such a job, with the same words, and
 * removes the others it would.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { jobStoppedAtChunk4 } from '../journal-lines.js';
import { worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-jobs-fifo-lock-', (w, d) => {
  world = w;
  dir = d;
});

const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });
const lockOf = (id: string) => join(dir, 'state', 'locks', `${id}.lock`);

function fifoAt(path: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  execFileSync('mkfifo', [path]);
}

async function finishedJob(item: string): Promise<string> {
  const created = await run(['create', S, item, '-y']);
  expect(created.code, created.stderr).toBe(0);
  return /job (j-[0-9a-z]+): taskctl jobs/.exec(created.stderr)?.[1] ?? '';
}

it('an unfinished job whose lock is a FIFO is listed with its state and a warning naming the path: exit 0', async () => {
  const { job } = await jobStoppedAtChunk4(run, dir, S, ['a.com', 'b.com', 'c.com', 'd.com', 'e.com']);
  const other = await finishedJob('z.com');
  fifoAt(lockOf(job));
  const listed = await run(['jobs', '-o', 'tsv']);
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout).toMatch(new RegExp(`^${job}\\t.*\\tinterrupted\\t`, 'm'));
  expect(listed.stdout).toContain(other);
  expect(listed.stderr).toContain(
    `warning: job ${job}: the lock file ${lockOf(job)} is a FIFO (named pipe), not a regular file`,
  );
  expect(listed.stderr).toContain('Remove it');
  const json = await run(['jobs', '-o', 'json']);
  expect(json.code, json.stderr).toBe(0);
  const rows = JSON.parse(json.stdout) as Array<{ id: string; state: string }>;
  expect(rows.find((row) => row.id === job)?.state).toBe('interrupted');
  expect(json.stderr).toContain(lockOf(job));
  expect(statSync(lockOf(job)).isFIFO()).toBe(true);
});

it('the lock beside the journal a FIFO too: the same', async () => {
  const { job, journal } = await jobStoppedAtChunk4(run, dir, S, ['a.com', 'b.com', 'c.com', 'd.com', 'e.com']);
  fifoAt(`${journal}.lock`);
  const listed = await run(['jobs', '-q']);
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout.trim()).toBe(job);
  expect(listed.stderr).toContain(`${journal}.lock is a FIFO (named pipe)`);
});

it('--prune skips a finished job whose lock is a FIFO, with the warning, and removes the others', async () => {
  const odd = await finishedJob('a.com');
  const plain = await finishedJob('b.com');
  fifoAt(lockOf(odd));
  const pruned = await run(['jobs', '--prune']);
  expect(pruned.code, pruned.stderr).toBe(0);
  expect(pruned.stderr).toContain('removed 1 finished job');
  expect(pruned.stderr).toContain(
    `warning: job ${odd}: the lock file ${lockOf(odd)} is a FIFO (named pipe), not a regular file`,
  );
  expect(pruned.stderr).toContain('Remove it');
  expect(existsSync(join(dir, 'state', 'jobs', `${odd}.jsonl`))).toBe(true);
  expect(existsSync(join(dir, 'state', 'jobs', `${plain}.jsonl`))).toBe(false);
  expect(statSync(lockOf(odd)).isFIFO()).toBe(true);
});

/**
 * A create killed before it recorded its job (while it read a long stdin) leaves a journal with no record and its copy
 * of stdin: `taskctl jobs` counts their disk and says what they are, `--prune` and the retention remove them, never
 * while their process runs (it holds the job's lock) and never a journal that holds a record of a chunk
 * (docs/behaviour.md#jobs).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTaskctl, T0 } from '../run-in-process.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'taskctl-unrecorded-'));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

const jobs = () => join(home, 'state', 'jobs');
const run = (argv: string[]) => runTaskctl(argv, { home });
const ID = 'j-m5xunpc0abcd';

/** What a create killed while it read stdin leaves: an empty journal and 3,000 bytes of the copy of stdin. */
function killedStart(id = ID): void {
  mkdirSync(jobs(), { recursive: true });
  writeFileSync(join(jobs(), `${id}.jsonl`), '');
  writeFileSync(join(jobs(), `${id}.jsonl.input`), 'x'.repeat(3000));
}

/** Its lock held by a running process (this one), as a create still reading its input holds it. */
function holdLock(path: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify({ pid: process.pid, host: hostname(), at: T0, token: 'live' }));
}

describe('a create stopped before it recorded its job', () => {
  it('`jobs` counts its disk and says what it is; --prune removes it', async () => {
    killedStart();
    const listed = await run(['jobs']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toMatch(/0 jobs on this machine; their journals use 3,000 bytes/);
    expect(listed.stderr).toMatch(
      /1 unfinished start \(a create stopped before it recorded its job: nothing of it was sent\) uses 3,000 bytes; taskctl jobs --prune removes it/,
    );
    const pruned = await run(['jobs', '--prune']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stderr).toMatch(/removed 0 finished jobs and 1 unfinished start/);
    expect(readdirSync(jobs())).toEqual([]);
    expect((await run(['jobs'])).stderr).toMatch(/their journals use 0 bytes/);
  });

  it('goes after the job-retention like a finished job, and stays before it', async () => {
    killedStart();
    const old = (T0 - 31 * 24 * 3600_000) / 1000;
    utimesSync(join(jobs(), `${ID}.jsonl`), old, old);
    killedStart('j-m5xunpc0efgh');
    const recent = (T0 - 3600_000) / 1000;
    utimesSync(join(jobs(), 'j-m5xunpc0efgh.jsonl'), recent, recent);
    expect((await run(['jobs'])).code).toBe(0);
    expect(readdirSync(jobs()).sort()).toEqual(['j-m5xunpc0efgh.jsonl', 'j-m5xunpc0efgh.jsonl.input']);
  });

  it('is never removed while its process runs (it holds the lock): it is being written', async () => {
    killedStart();
    holdLock(join(home, 'state', 'locks', `${ID}.lock`));
    const pruned = await run(['jobs', '--prune']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(existsSync(join(jobs(), `${ID}.jsonl.input`))).toBe(true);
    expect(pruned.stderr).not.toMatch(/unfinished start/);
    rmSync(join(home, 'state', 'locks', `${ID}.lock`));
    holdLock(join(jobs(), `${ID}.jsonl.lock`));
    expect((await run(['jobs', '--prune'])).code).toBe(0);
    expect(existsSync(join(jobs(), `${ID}.jsonl.input`))).toBe(true);
  });

  it('a journal that holds a record of a chunk sent is never removed, even with its job record lost', async () => {
    mkdirSync(jobs(), { recursive: true });
    const send = { type: 'send', chunk: 1, first: 0, count: 1, sha256: '', sent_at: T0, settle_after: T0 };
    writeFileSync(join(jobs(), `${ID}.jsonl`), `${JSON.stringify(send)}\n`);
    expect((await run(['jobs', '--prune'])).code).toBe(0);
    expect(existsSync(join(jobs(), `${ID}.jsonl`))).toBe(true);
  });
  it('a journal of zero bytes where its records were (a crash the file system did not finish) is never one', async () => {
    mkdirSync(jobs(), { recursive: true });
    writeFileSync(join(jobs(), `${ID}.jsonl`), Buffer.alloc(2600));
    const listed = await run(['jobs']);
    expect(listed.stderr).not.toMatch(/unfinished start|nothing of it was sent/);
    expect((await run(['jobs', '--prune'])).stderr).not.toMatch(/unfinished start/);
    expect(existsSync(join(jobs(), `${ID}.jsonl`))).toBe(true);
    // Its resume says what it is and never to create the items again blind (its run may have bought them).
    const resumed = await run(['resume', ID]);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain('is damaged: zero bytes where its records were (a crash)');
    expect(resumed.stderr).toContain('look for them with `taskctl list` before you create its items again');
    expect(resumed.stderr).not.toMatch(/run the create again|nothing of it was sent/i);
  });
});

describe('no jobs at all', () => {
  it('on a terminal: the one line that says so, no "No results." above it', async () => {
    const listed = await runTaskctl(['jobs'], { home, stdoutTTY: true, stderrTTY: true, columns: 120 });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe('');
    // One sentence (wrapped at the terminal's width where the path is long).
    expect(listed.stderr.replace(/\s+/g, ' ')).toMatch(
      /^0 jobs on this machine; their journals use 0 bytes \(state directory: [^)]*\) $/,
    );
  });
});

describe('a jobs directory that cannot be read', () => {
  it('is an error naming it, never "0 jobs" or "no job": the job may be there', async () => {
    mkdirSync(join(home, 'state'), { recursive: true });
    writeFileSync(jobs(), ''); // not a directory: as unreadable as another user's (these tests may run as root)
    for (const argv of [['jobs'], ['resume', ID], ['resume'], ['show', '--job', ID]]) {
      const result = await run(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toContain(`cannot read the jobs directory ${jobs()}`);
      expect(result.stderr).not.toMatch(/0 jobs|no job|no interrupted job/);
      // A file in the way is no other user's directory: the hint says what is wrong, never "run it as the owner".
      expect(result.stderr).toContain(
        'is a file where taskctl needs a directory: set TASKCTL_STATE_DIR to a directory',
      );
      expect(result.stderr).not.toMatch(/owns the directory/);
    }
  });
});

describe('copies of a job whose journal is gone', () => {
  /** What a removal cut short between journal and copies (or a journal deleted by hand) leaves: copies only. */
  function orphanedCopies(id = ID): void {
    mkdirSync(jobs(), { recursive: true });
    writeFileSync(join(jobs(), `${id}.jsonl.input`), 'x'.repeat(3000));
    writeFileSync(join(jobs(), `${id}.jsonl.input-1`), 'y'.repeat(500));
  }

  it('`jobs` counts their disk and says what they are; --prune removes them', async () => {
    orphanedCopies();
    const listed = await run(['jobs']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toMatch(/0 jobs on this machine; their journals use 3,500 bytes/);
    expect(listed.stderr).toMatch(
      /1 leftover input \(copies of a job's input whose journal is gone: nothing can use them\) uses 3,500 bytes; taskctl jobs --prune removes it/,
    );
    const pruned = await run(['jobs', '--prune']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stderr).toMatch(/removed 0 finished jobs and 1 leftover input/);
    expect(readdirSync(jobs())).toEqual([]);
  });

  it('go after the job-retention, and stay before it', async () => {
    orphanedCopies();
    const old = (T0 - 31 * 24 * 3600_000) / 1000;
    for (const name of readdirSync(jobs())) utimesSync(join(jobs(), name), old, old);
    orphanedCopies('j-m5xunpc0efgh');
    expect((await run(['jobs'])).code).toBe(0);
    expect(readdirSync(jobs()).sort()).toEqual(['j-m5xunpc0efgh.jsonl.input', 'j-m5xunpc0efgh.jsonl.input-1']);
  });

  it('are never removed while a run holds the job (a create about to record its journal)', async () => {
    orphanedCopies();
    holdLock(join(home, 'state', 'locks', `${ID}.lock`));
    const pruned = await run(['jobs', '--prune']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(existsSync(join(jobs(), `${ID}.jsonl.input`))).toBe(true);
    expect(pruned.stderr).not.toMatch(/leftover input/);
    rmSync(join(home, 'state', 'locks', `${ID}.lock`));
    expect((await run(['jobs', '--prune'])).stderr).toMatch(/and 1 leftover input/);
    expect(readdirSync(jobs())).toEqual([]);
  });

  it('a job removed while a copy cannot be: its journal stays, so it is still found', async () => {
    killedStart();
    // A copy that cannot be removed (a directory with a file in it, as no taskctl makes): the removal stops there.
    mkdirSync(join(jobs(), `${ID}.jsonl.args`, 'in'), { recursive: true });
    writeFileSync(join(jobs(), `${ID}.jsonl.args`, 'in', 'f'), '');
    await run(['jobs', '--prune']);
    expect(existsSync(join(jobs(), `${ID}.jsonl`))).toBe(true);
  });
});

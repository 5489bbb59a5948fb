/**
 * diff's sorted runs go on every exit (docs/behaviour.md#scratch): output that cannot be written (exit 14) leaves no
 * scratch dir, whether the table or a streamed format failed, and a diff killed with SIGKILL leaves one that the
 * next diff sweeps as it starts, at once. The diffs that fail or are killed are the bin (an exit hook, a SIGKILL); the
 * next diff's sweep runs `main()` in this process (its subject is the sweep, not the process).
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTaskctl } from '../unit/commands/run-in-process.js';
import { BIN, exitOf, isolatedHome, waitFor, type IsolatedHome } from './spawn-cli.js';

/** Items of side A: with the note below, past one sorted run (8 MiB of lines, here 10 MB: side A spills after about
 * 420 of them, so 500 leave a fifth to spare). Side B is one item: one side spilling makes the scratch dir. Few items
 * with a long note: the bytes spill a run, while the work of a diff grows with the items (5,000 items of a 2,000-character
 * note cost each diff about 0.1 s more CPU, 60,000 short ones a third more again). */
const ITEMS = 500;
const NOTE = 'n'.repeat(20_000);

let home: IsolatedHome;
let a: string;
let b: string;
beforeAll(() => {
  home = isolatedHome();
  a = join(home.dir, 'a.ndjson');
  b = join(home.dir, 'b.ndjson');
  // A note makes side A's lines pass a run's 8 MiB (src/core/diff/sort.ts): its runs spill.
  const line = (i: number, available: boolean) =>
    JSON.stringify({ target: `host${i}.example.com`, status: 'completed', available, note: NOTE });
  writeFileSync(a, `${Array.from({ length: ITEMS }, (_, i) => line(i, true)).join('\n')}\n`);
  writeFileSync(b, `${line(0, false)}\n`);
});
afterAll(() => home.cleanup());

/** A fresh temp dir for one run, and its taskctl scratch dirs. */
function tempDir(name: string): { dir: string; scratch: () => string[]; listing: () => string } {
  const dir = join(home.dir, name);
  mkdirSync(dir);
  const scratch = () => readdirSync(dir).filter((entry) => entry.startsWith('taskctl-'));
  /** Each scratch dir with what it holds, for a failure message. */
  const listing = () =>
    JSON.stringify(
      Object.fromEntries(
        scratch().map((entry) => {
          try {
            return [entry, readdirSync(join(dir, entry))];
          } catch (error) {
            return [entry, String(error)];
          }
        }),
      ),
    );
  return { dir, scratch, listing };
}

/** `taskctl diff A B -o FORMAT > /dev/full`: exit code and stderr. */
function diffToFull(format: string, tmp: string): Promise<{ code: number | null; stderr: string }> {
  const full = openSync('/dev/full', 'w');
  const child = spawn(process.execPath, [BIN, 'diff', a, b, '-o', format], {
    env: { ...home.env, PATH: process.env.PATH ?? '/usr/bin:/bin', TMPDIR: tmp },
    stdio: ['ignore', full, 'pipe'],
  });
  closeSync(full);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // The whole run, a diff of two large files on a loaded machine: within the test's 60 s.
  return exitOf(child, { timeoutMs: 50_000, describe: () => `stderr so far: ${stderr}` }).then(({ code }) => ({
    code,
    stderr,
  }));
}

describe('diff scratch files', () => {
  // The two ways diff writes (core/diff/print.ts): the table after the walk, and the machine formats streamed through
  // one writer (ndjson, csv and tsv go the way json does). At once, each in its own temp dir.
  it.concurrent.each(['table', 'json'])(
    '-o %s to a full disk: exit 14, no scratch dir left',
    { timeout: 60_000 },
    async (format) => {
      const tmp = tempDir(`full-${format}`);
      const result = await diffToFull(format, tmp.dir);
      expect(result.code, result.stderr).toBe(14);
      expect(tmp.scratch()).toEqual([]);
    },
  );

  it(
    'a diff killed with SIGKILL leaves its runs; the next diff sweeps them as it starts',
    { timeout: 60_000 },
    async () => {
      const tmp = tempDir('killed');
      // Side A from a pipe held open: the diff spills its first run, reads the rest, then waits for more, so the run
      // is on disk until the kill. Read from a file, the whole diff (spill, merge, sweep) could end between two looks.
      const child = spawn(process.execPath, [BIN, 'diff', '-', b, '-o', 'ndjson'], {
        env: { ...home.env, PATH: process.env.PATH ?? '/usr/bin:/bin', TMPDIR: tmp.dir },
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      child.stdin.on('error', () => undefined); // EPIPE once killed
      child.stdin.write(readFileSync(a));
      // Killed once its first run is on disk.
      await waitFor(() => tmp.scratch().some((name) => readdirSync(join(tmp.dir, name)).includes('run-1')), {
        timeoutMs: 30_000,
        everyMs: 20,
        describe: () =>
          `no run-1 yet; ${tmp.listing()}; the diff ${child.exitCode === null ? 'runs' : `exited ${child.exitCode}`}`,
      });
      child.kill('SIGKILL');
      await exitOf(child, { on: 'exit', describe: () => 'killed with SIGKILL' });
      expect(tmp.scratch()).toHaveLength(1);
      const small = join(home.dir, 'small.ndjson');
      writeFileSync(small, '{"target":"a.com","status":"completed"}\n');
      // The scratch dir's parent is the system temp dir, read from TMPDIR as the diff starts (no other test of this file
      // runs meanwhile: this one is not concurrent).
      const saved = process.env.TMPDIR;
      process.env.TMPDIR = tmp.dir;
      const next = await runTaskctl(['diff', small, small], { env: home.env, home: home.dir }).finally(() => {
        if (saved === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved;
      });
      expect(next.code, next.stderr).toBe(0);
      expect(tmp.scratch()).toEqual([]);
    },
  );
});

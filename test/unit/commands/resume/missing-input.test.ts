/**
 * `resume` of a job whose input is gone names the missing file in words and says how to put it back, before any
 * request: never an errno name, never the generic hint (docs/behaviour.md#resume). An input that is not a regular file
 * (`-f <(cmd)`, `-f /dev/stdin`, a FIFO) cannot be read again: it is kept as a copy beside the journal, as stdin is.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diskBytes, JobStore } from '../../../../src/store/job-files.js';
import { worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl, type RunOptions } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-missing-input-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], options: RunOptions = {}) =>
  runTaskctl(argv, { env: world.env, clock: world.clock, home: dir, ...options });

/** A job whose second chunk's answer is lost (exit 9): interrupted, its inputs still needed. */
async function stoppedJob(argv: string[], options: RunOptions = {}): Promise<string> {
  await world.fault({ method: 'POST', path: '/tasks', kind: 'delay', delayMs: 0 });
  await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-before', count: 1 });
  const result = await run(['create', S, ...argv, '--chunk-size', '1', '-q'], options);
  expect(result.code, result.stderr).toBe(9);
  await world.clearFaults();
  return /taskctl resume (j-[0-9a-z]+)/.exec(result.stderr)?.[1] ?? '';
}

describe('resume with an input gone', () => {
  // One job for a file changed, then gone: each refusal sends and records nothing, so the next meets the same job.
  it('a file changed: the job named once when its name is its id; a file gone: names it, says to put it back at that path, and sends nothing', async () => {
    const items = join(dir, 'items.txt');
    writeFileSync(items, 'a.com\nb.com\nc.com\n');
    const id = await stoppedJob(['-f', items]);
    const journal = readFileSync(join(dir, 'state', 'jobs', `${id}.jsonl`), 'utf8');
    const posts = await world.posts();
    writeFileSync(items, 'a.com\nb.com\nd.com\n');
    const changed = await run(['resume', id]);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain(`job ${id} cannot be continued as it is now: the content of ${items} differs`);
    expect(readFileSync(join(dir, 'state', 'jobs', `${id}.jsonl`), 'utf8')).toBe(journal);
    rmSync(items);
    const result = await run(['resume', id]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`job ${id} cannot be continued: its input ${items} is missing`);
    expect(result.stderr).toMatch(new RegExp(`Put .*back at ${items.replace(/[.]/g, '\\.')}`));
    expect(result.stderr).not.toMatch(/ENOENT|errno/);
    expect(await world.posts()).toBe(posts);
  });

  it('the copy of stdin kept beside the journal: names it as that copy', async () => {
    const id = await stoppedJob([], { stdin: 'a.com\nb.com\nc.com\n' });
    const copy = join(dir, 'state', 'jobs', `${id}.jsonl.input`);
    rmSync(copy);
    const result = await run(['resume', id]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`its copy of stdin ${copy} is missing`);
    expect(result.stderr).toMatch(/Put it back at that path/);
    expect(result.stderr).not.toMatch(/ENOENT/);
  });
});

/** Writers of the FIFOs made by `fifoOf`, stopped after each test (a writer whose reader never came would wait). */
const writers: ChildProcess[] = [];
afterEach(() => {
  for (const writer of writers.splice(0)) if (writer.exitCode === null) writer.kill();
});

/** A FIFO at `path` whose writer (another process, as the command of `<(cmd)` is) gives `text` once and closes it. */
function fifoOf(path: string, text: string): string {
  execFileSync('mkfifo', [path]);
  writers.push(spawn('sh', ['-c', 'printf %s "$1" > "$0"', path, text], { stdio: 'ignore' }));
  return path;
}

describe.runIf(process.platform === 'linux')('an input that is a FIFO (as `-f <(cmd)` is a pipe)', () => {
  it('is kept as a copy beside the journal: the job, stopped after chunk 1, is resumed and every item paid once', async () => {
    const items = join(dir, 'items.txt');
    writeFileSync(items, 'a.com\n');
    const fifo = fifoOf(join(dir, 'pipe'), 'b.com\nc.com\n');
    const id = await stoppedJob(['-f', items, '-f', fifo]);
    // The pipe is gone with the process that wrote it, as /dev/fd/63 is after the shell's command.
    rmSync(fifo);
    const journal = join(dir, 'state', 'jobs', `${id}.jsonl`);
    const copy = `${journal}.input-1`;
    expect(readFileSync(copy, 'utf8')).toBe('b.com\nc.com\n');
    const inputs = (JSON.parse(readFileSync(journal, 'utf8').split('\n')[0] ?? '') as { inputs: unknown[] }).inputs;
    expect(inputs).toMatchObject([
      { kind: 'file', path: items },
      { kind: 'stream', path: copy, from: fifo },
    ]);
    const result = await run(['resume', id, '-q']);
    expect(result.code, result.stderr).toBe(0);
    expect(Object.fromEntries(await world.itemCounts())).toEqual({ 'a.com': 1, 'b.com': 1, 'c.com': 1 });
    // The copy belongs to the job: counted in its disk, and removed with it.
    expect(diskBytes({ path: journal, size: 0 })).toBe('b.com\nc.com\n'.length);
    new JobStore(join(dir, 'state')).remove({ id, path: journal, own: true });
    expect(existsSync(copy)).toBe(false);
  });

  it('the same `create --journal FILE` run again with a new FIFO of the same bytes continues the job', async () => {
    const journal = join(dir, 'job.jsonl');
    const stopped = await stoppedJob(['-f', fifoOf(join(dir, 'pipe'), 'a.com\nb.com\nc.com\n'), '--journal', journal]);
    expect(stopped).not.toBe('');
    const fifo = fifoOf(join(dir, 'pipe2'), 'a.com\nb.com\nc.com\n');
    const again = await run(['create', S, '-f', fifo, '--chunk-size', '1', '--journal', journal, '-q']);
    expect(again.code, again.stderr).toBe(0);
    expect(Object.fromEntries(await world.itemCounts())).toEqual({ 'a.com': 1, 'b.com': 1, 'c.com': 1 });
  });

  it('its copy gone at resume: names it as the copy of that input, and sends nothing', async () => {
    const fifo = fifoOf(join(dir, 'pipe'), 'a.com\nb.com\nc.com\n');
    const id = await stoppedJob(['-f', fifo]);
    const copy = join(dir, 'state', 'jobs', `${id}.jsonl.input-1`);
    rmSync(copy);
    const posts = await world.posts();
    const result = await run(['resume', id]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`its copy of ${fifo} ${copy} is missing`);
    expect(result.stderr).toMatch(/Put it back at that path/);
    expect(await world.posts()).toBe(posts);
  });
});

describe.runIf(process.platform === 'linux')(
  'an input named by a descriptor of the process (`-f /dev/stdin < file`)',
  () => {
    it.each(['/dev/fd/N', '/proc/self/fd/N'])(
      '%s on a regular file is a stream: copied, never recorded by its path',
      async (name) => {
        const items = join(dir, 'items.txt');
        writeFileSync(items, 'a.com\nb.com\nc.com\n');
        const fd = openSync(items, 'r');
        try {
          const path = name.replace('N', String(fd));
          const id = await stoppedJob(['-f', path]);
          const journal = join(dir, 'state', 'jobs', `${id}.jsonl`);
          const copy = `${journal}.input-1`;
          const inputs = (JSON.parse(readFileSync(journal, 'utf8').split('\n')[0] ?? '') as { inputs: unknown[] })
            .inputs;
          expect(inputs).toEqual([expect.objectContaining({ kind: 'stream', path: copy, from: path })]);
          expect(readFileSync(copy, 'utf8')).toBe('a.com\nb.com\nc.com\n');
        } finally {
          closeSync(fd);
        }
        // The descriptor is gone, as the next shell's stdin is another file: resume reads the copy.
        const id = (await run(['jobs', '-q'])).stdout.trim();
        const result = await run(['resume', id, '-q']);
        expect(result.code, result.stderr).toBe(0);
        expect(Object.fromEntries(await world.itemCounts())).toEqual({ 'a.com': 1, 'b.com': 1, 'c.com': 1 });
      },
    );
  },
);

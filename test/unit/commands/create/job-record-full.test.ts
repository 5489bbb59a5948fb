/**
 * A full disk met at a new job's first record (the lock fitted, the job record does not), or at the copy of its piped
 * input or of its arguments: nothing was sent, and the error says so in two lines with the next step, exit 14 as for
 * any journal the disk has no room for; no job is left behind (docs/behaviour.md#jobs).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalIo } from '../../../../src/store/journal-file.js';
import { whileFailingFs } from '../../store/failing-fs.js';
import { worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-record-full-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });

describe("a full disk at a new job's record", () => {
  it('is exit 14 in two lines: nothing was sent, free space and run it again; no job, ref or lock is left', async () => {
    const write = journalIo.write;
    let calls = 0;
    journalIo.write = (fd, bytes, offset) => {
      calls++;
      if (calls === 1) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      return write(fd, bytes, offset);
    };
    let result;
    try {
      result = await run(['create', S, 'a.com', 'b.com', '--chunk-size', '1', '--yes', '-q']);
    } finally {
      journalIo.write = write;
    }
    expect(result.code, result.stderr).toBe(14);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^error: cannot write the journal \S+: the disk is full; nothing was sent$/);
    expect(lines[1]).toMatch(
      /free space in \S+ \(or pass --journal FILE on another disk\), then run the same command again/,
    );
    expect(result.stderr).not.toMatch(/resume|ENOSPC/);
    expect(await world.tasks()).toEqual([]);
    const jobs = join(dir, 'state', 'jobs');
    expect(existsSync(jobs) ? readdirSync(jobs) : []).toEqual([]);
    const listed = await run(['jobs', '-q']);
    expect(listed.stdout).toBe('');
    // Followed once there is room: the create runs, once.
    const again = await run(['create', S, 'a.com', 'b.com', '--chunk-size', '1', '--yes', '-q']);
    expect(again.code, again.stderr).toBe(0);
    expect(await world.tasks()).toHaveLength(2);
  });
});

describe("a full disk at the copy of a new job's input", () => {
  it.each([
    ['piped items', 'input', { stdin: 'a.com\nb.com\n' }, []],
    ['arguments', 'arguments', {}, ['a.com', 'b.com']],
  ])('%s: exit 14, nothing sent, free space and run it again', async (_, what, input, args) => {
    const suffix = what === 'input' ? '.input' : '.args';
    const result = await whileFailingFs(
      (name, argv) => (name === 'openSync' && String(argv[0]).endsWith(suffix) ? 'ENOSPC' : undefined),
      () =>
        runTaskctl(['create', S, ...args, '--chunk-size', '1', '--yes', '-q'], {
          env: world.env,
          clock: world.clock,
          home: dir,
          ...input,
        }),
    );
    expect(result.code, result.stderr).toBe(14);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(`^error: cannot write the copy of the ${what} \\(\\S+\\): the disk is full; nothing was sent$`),
    );
    expect(lines[1]).toMatch(
      /^Free space in \S+ \(or pass --journal FILE on another disk\), then run the same command again\.$/,
    );
    expect(await world.tasks()).toEqual([]);
    expect((await run(['jobs', '-q'])).stdout).toBe('');
  });
});

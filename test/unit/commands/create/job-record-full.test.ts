/**
 * A full disk met at a new job's first record (the lock fitted, the job record does not): nothing was sent, and the
 * error says so in two lines with the next step; no job is left behind (docs/behaviour.md#jobs).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalIo } from '../../../../src/store/journal-file.js';
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

/**
 * `resume` of a job whose journal cannot be opened for writing because the disk is full (or for a cause the system
 * does not name), or cannot be written while a chunk in doubt is settled: its advice is what `resume` can do (free
 * space, then the same resume again), never a flag it does not take (`--journal` is create's). Followed, it goes on.
 */
import { constants } from 'node:fs';
import { expect, it } from 'vitest';
import { jobStoppedAtChunk4 } from '../journal-lines.js';
import { whileFailingFs } from '../../store/failing-fs.js';
import { worldEachTest, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-resume-full-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[]) => world.run(argv, { home: dir });

for (const code of ['ENOSPC', 'EIO']) {
  it(`${code} at the journal's open: the advice names no --journal, and the same resume, run again, goes on`, async () => {
    const { job, journal } = await jobStoppedAtChunk4(run, dir, S, ['a.com', 'b.com', 'c.com', 'd.com', 'e.com']);
    const writing = constants.O_WRONLY | constants.O_RDWR;
    const refused = await whileFailingFs(
      (name, args) =>
        name === 'openSync' && String(args[0]) === journal && typeof args[1] === 'number' && (args[1] & writing) !== 0
          ? code
          : undefined,
      () => run(['resume', job, '-y']),
    );
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).not.toContain('--journal');
    expect(refused.stderr).toMatch(
      code === 'ENOSPC'
        ? /\nFree space there, then run the same resume again\.\n$/
        : /\nCheck the disk and the directory permissions, then run the same resume again\.\n$/,
    );
    const resumed = await run(['resume', job, '-y']);
    expect(resumed.code, resumed.stderr).toBe(0);
  });
}

it('a full disk while a chunk in doubt is settled: exit 14 with the way on, then that resume, run as printed, goes on', async () => {
  // Chunk 4, the last, in doubt: its task is on the service, to be found, never bought again.
  const { job } = await jobStoppedAtChunk4(run, dir, S, ['a.com', 'b.com', 'c.com', 'd.com']);
  const settling = (name: string, args: readonly unknown[]) =>
    name === 'writeSync' && Buffer.isBuffer(args[1]) && args[1].includes('"type":"reconciled"') ? 'ENOSPC' : undefined;
  const full = await whileFailingFs(settling, () => run(['resume', job, '-y']));
  expect(full.code, full.stderr).toBe(14);
  expect(full.stderr).toMatch(/cannot write the journal .*: the disk is full\n/);
  const hint = full.stderr.trim().split('\n').at(-1) ?? '';
  expect(hint).toBe(`When there is room again: taskctl resume ${job} --yes`);
  const resumed = await run(hint.replace(/^.*: taskctl /, '').split(' '));
  expect(resumed.code, resumed.stderr).toBe(0);
  expect([...(await world.itemCounts()).values()]).toEqual([1, 1, 1, 1]);
});

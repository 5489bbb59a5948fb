/**
 * A file that is not a journal, given to `create --journal` or `resume`, is refused (exit 2) without a trace: no
 * `jobs/ID.ref` names it, so `taskctl jobs` lists no job and a bare `resume` is not blocked by it. A ref to such a file
 * that an older taskctl left is forgotten by `jobs --prune` (never the file).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newJobId } from '../../../../src/core/job/registry.js';
import { T0 } from '../../../clock.js';
import { worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-not-journal-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });
const jobsDir = () => join(dir, 'state', 'jobs');
const refs = () => (existsSync(jobsDir()) ? readdirSync(jobsDir()).filter((name) => name.endsWith('.ref')) : []);

describe('a file that is not a journal', () => {
  it('refused by `create --journal` and `resume`: exit 2, no ref left, `jobs` lists nothing, a bare resume is not blocked', async () => {
    const plain = join(dir, 'plain.txt');
    writeFileSync(plain, 'hello\n');
    const created = await run(['create', S, 'x.com', '--journal', plain, '--yes']);
    expect(created.code, created.stderr).toBe(2);
    expect(created.stderr).toMatch(/plain\.txt is not a taskctl journal/);
    const resumed = await run(['resume', plain]);
    expect(resumed.code, resumed.stderr).toBe(2);
    expect(resumed.stderr).toMatch(/plain\.txt is not a taskctl journal/);
    expect(readFileSync(plain, 'utf8')).toBe('hello\n');
    expect(refs()).toEqual([]);
    const jobs = await run(['jobs']);
    expect(jobs.code, jobs.stderr).toBe(0);
    expect(jobs.stderr).not.toMatch(/unreadable|plain\.txt/);
    const bare = await run(['resume']);
    expect(bare.code, bare.stderr).toBe(0);
    expect(await world.tasks()).toEqual([]);
  });

  it.runIf(process.platform === 'linux')(
    'a /proc file (its directory takes no lock) is said to be no journal, not to be resumed as another user',
    async () => {
      for (const argv of [
        ['resume', '/proc/self/status'],
        ['create', S, 'x.com', '--journal', '/proc/self/status', '--yes'],
      ]) {
        const result = await run(argv);
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr).toMatch(/^error: \/proc\/self\/status is not a taskctl journal/);
        expect(result.stderr).not.toMatch(/cannot lock|as a user who can write|resume it/);
      }
      expect(refs()).toEqual([]);
      expect(await world.tasks()).toEqual([]);
    },
  );

  it('a ref to it left by an older taskctl: listed unreadable with the way out; `jobs --prune` forgets it, keeps the file', async () => {
    const plain = join(dir, 'notes.txt');
    writeFileSync(plain, 'notes\n');
    mkdirSync(jobsDir(), { recursive: true, mode: 0o700 });
    const id = newJobId(T0);
    writeFileSync(join(jobsDir(), `${id}.ref`), `${plain}\n`, { mode: 0o600 });
    const listed = await run(['jobs']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\t.*\\tunreadable\\t`, 'm'));
    expect(listed.stderr).toContain(`job ${id}: ${plain} is not a taskctl journal`);
    expect(listed.stderr).toContain('`taskctl jobs --prune` forgets it (the file is kept)');
    const pruned = await run(['jobs', '--prune']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stderr).toContain('1 reference to a file that is not a journal (the file is kept)');
    expect(pruned.stdout).not.toContain(id);
    expect(refs()).toEqual([]);
    expect(readFileSync(plain, 'utf8')).toBe('notes\n');
    const bare = await run(['resume']);
    expect(bare.code, bare.stderr).toBe(0);
  });
});

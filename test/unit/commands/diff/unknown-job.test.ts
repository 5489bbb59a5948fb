/**
 * `diff` with a side shaped like a job id (`j-` then letters and digits) that names no file and no job of this
 * machine: a usage error (exit 2) in `resume`'s words, not an unreadable input file (exit 3).
 */
import { expect, it } from 'vitest';
import { worldEachTest, type World } from '../sandbox-world.js';

let world: World;
let dir: string;
worldEachTest('taskctl-diff-unknown-job-', (w, d) => ((world = w), (dir = d)));

it('is exit 2: no job j-zzz on this machine, on either side', async () => {
  for (const argv of [
    ['diff', 'j-zzz', '1'],
    ['diff', '1', 'j-zzz'],
    ['diff', 'j-zzzzzz', '1'],
  ]) {
    const id = argv.find((arg) => arg.startsWith('j-')) ?? '';
    const result = await world.run(argv, { home: dir });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toBe(
      `error: no job ${id} on this machine\n\`taskctl jobs --all\` lists the jobs this machine knows.\n`,
    );
  }
});

/**
 * An argument shaped like a job id (`j-` then letters and digits) that names no file and no job of this machine: every
 * `--job` command says so as `resume` does (exit 2, `taskctl jobs --all` lists them), never reading it as a journal
 * path and asking for the file of a `create --journal` the user never made.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { worldEachTest, type World } from '../sandbox-world.js';

let world: World;
let dir: string;
worldEachTest('taskctl-unknown-job-', (w, d) => ((world = w), (dir = d)));

it.each(['wait --job', 'show --job', 'retry --job', 'watch --job', 'resume'])(
  '%s j-zzz: no job j-zzz on this machine (exit 2)',
  async (words) => {
    const command = words.split(' ');
    for (const id of ['j-zzz', 'j-zzzzzz']) {
      const result = await world.run([...command, id], { home: dir });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toBe(
        `error: no job ${id} on this machine\n\`taskctl jobs --all\` lists the jobs this machine knows.\n`,
      );
    }
    expect(await world.posts()).toBe(0);
  },
);

it('a path that is no journal is named as a path, with the same hint for every --job command and resume', async () => {
  for (const command of [['wait', '--job'], ['show', '--job'], ['resume']]) {
    const result = await world.run([...command, join(dir, 'nope.jsonl')], { home: dir });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toBe(
      `error: no journal at ${join(dir, 'nope.jsonl')}\nCheck the path: \`taskctl jobs\` lists the jobs of this machine.\n`,
    );
  }
});

/**
 * `--reuse-window 0` (create, retry, resume): a window of no time is refused as the flag is read (exit 2), before any
 * journal is written. It was taken, written into the job's first record, and that record then failed the journal's own
 * check: every run after was `… is not a taskctl journal`, the file left in the way of `--journal FILE`.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { worldEachTest, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-reuse-zero-', (w, d) => ((world = w), (dir = d)));
const run = (argv: string[]) => world.run(argv, { home: dir });

describe('--reuse-window 0', () => {
  it.each([['0'], ['0s'], ['0ms']])(
    'create --reuse-window %s --journal FILE: exit 2, no file, nothing sent',
    async (zero) => {
      const journal = join(dir, 'y.jsonl');
      const result = await run(['create', S, 'a.com', '--reuse-window', zero, '--journal', journal]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/--reuse-window must be above 0/);
      expect(existsSync(journal)).toBe(false);
      expect(readdirSync(dir).filter((name) => name.startsWith('y.jsonl'))).toEqual([]);
      expect(await world.posts()).toBe(0);
      const plain = await run(['create', S, 'a.com', '--journal', journal, '-q']);
      expect(plain.code, plain.stderr).toBe(0);
    },
  );

  it('retry and resume refuse it too, before reading anything', async () => {
    for (const argv of [
      ['retry', '1', '--reuse-window', '0'],
      ['resume', 'j-00000000zzzz', '--reuse-window', '0'],
    ]) {
      const result = await run(argv);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/--reuse-window must be above 0/);
    }
  });
});

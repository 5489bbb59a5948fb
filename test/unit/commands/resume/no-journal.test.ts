/**
 * `resume PATH` where no journal is (a typo, or a finished job's journal removed meanwhile): exit 2 saying so, and no
 * file made there. It must never say the job sent nothing: following "run the create again" after a typo would pay
 * again for every chunk the real job created (docs/behaviour.md#resume).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

let world: World;
let dir: string;
worldEachTest('taskctl-no-journal-', (w, d) => ((world = w), (dir = d)));

describe('resume of a path with no journal', () => {
  it('is exit 2 naming the path, makes no file, and never advises creating again', async () => {
    const real = join(dir, 'j1.jsonl');
    const created = await runTaskctl(['create', 'domain_check_availability', 'a.com', '--journal', real, '-q'], {
      env: world.env,
      clock: world.clock,
      home: dir,
    });
    expect(created.code, created.stderr).toBe(0);
    const typo = join(dir, 'j1.json');
    const result = await runTaskctl(['resume', typo], { env: world.env, clock: world.clock, home: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`no journal at ${typo}`);
    expect(result.stderr).not.toMatch(/run the create again|sent nothing/);
    expect(existsSync(typo)).toBe(false);
    expect(await world.posts()).toBe(1);
  });
});

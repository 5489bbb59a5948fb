/**
 * `resume` of a job whose input is gone names the missing file in words and says how to put it back, before any
 * request: never an errno name, never the generic hint (docs/behaviour.md#resume).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl, type RunOptions } from '../harness.js';

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
  it('a file: names it, says to put it back at that path, and sends nothing', async () => {
    const items = join(dir, 'items.txt');
    writeFileSync(items, 'a.com\nb.com\nc.com\n');
    const id = await stoppedJob(['-f', items]);
    rmSync(items);
    const posts = await world.posts();
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

  it('a file changed: the job named once when its name is its id', async () => {
    const items = join(dir, 'items.txt');
    writeFileSync(items, 'a.com\nb.com\nc.com\n');
    const id = await stoppedJob(['-f', items]);
    writeFileSync(items, 'a.com\nb.com\nd.com\n');
    const result = await run(['resume', id]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`job ${id} cannot be continued as it is now: the content of ${items} differs`);
  });
});

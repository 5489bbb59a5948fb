/**
 * The README's "two steps" recipe for CI (create a big file in chunks to a file of ids, then wait on it with reports)
 * runs as written where CI runs it: no terminal to confirm on. Only the file names are made absolute here (in-process
 * runs share the test's working directory).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxWorld, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const README = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');
const at = README.indexOf('Creating and waiting can be two steps');
const block = /```sh\n([\s\S]*?)```/.exec(README.slice(at))?.[1] ?? '';
const [createLine = '', waitLine = ''] = block.trim().split('\n');

let world: World;
let dir: string;
beforeEach(async () => {
  world = await startSandboxWorld();
  dir = mkdtempSync(join(tmpdir(), 'taskctl-readme-steps-'));
});
afterEach(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A README line's arguments after `taskctl`, up to its redirection, with its relative file names under `dir`. */
function argsOf(line: string, redirect: '<' | '>'): string[] {
  const [command = ''] = line.split(` ${redirect} `);
  const words = command.trim().split(/\s+/);
  expect(words[0]).toBe('taskctl');
  return words
    .slice(1)
    .map((word) => word.replace(/^domains\.txt$/, join(dir, 'domains.txt')).replace(/=reports\//, `=${dir}/reports/`));
}

describe("the README's create-then-wait recipe for CI", () => {
  it('splits a file of 1,001 items into 2 tasks and waits on them with a JUnit report, with no terminal', async () => {
    expect(createLine).toMatch(/ > ids\.txt$/);
    expect(waitLine).toMatch(/ < ids\.txt$/);
    const domains = Array.from({ length: 1001 }, (_, i) => `d${i}.example.com`);
    writeFileSync(join(dir, 'domains.txt'), `${domains.join('\n')}\n`);
    const env = { ...world.env, GITHUB_STEP_SUMMARY: join(dir, 'summary.md') };
    const created = await runTaskctl(argsOf(createLine, '>'), { env, clock: world.clock, home: dir });
    expect(created.code, created.stderr).toBe(0);
    const ids = created.stdout.trim().split('\n');
    expect(ids).toHaveLength(2);
    const waited = await runTaskctl(argsOf(waitLine, '<'), {
      env,
      clock: world.clock,
      home: dir,
      stdin: created.stdout,
    });
    expect(waited.code, waited.stderr).toBe(0);
    const junit = join(dir, 'reports', 'taskctl.xml');
    expect(existsSync(junit)).toBe(true);
    expect(readFileSync(junit, 'utf8')).toMatch(/tests="1001"/);
    expect((await world.itemCounts()).size).toBe(1001);
  });
});

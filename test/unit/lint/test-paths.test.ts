/**
 * A unit test's path says what it covers (test/README.md#where-tests-live): `test/unit/<dir>/<module>.test.ts` for
 * src/<dir>/<module>.ts, `<module>.<aspect>.test.ts` for one more file of the same module, and
 * `test/unit/commands/<command>/<scenario>.test.ts` for a scenario of `taskctl <command>` (src/commands/<command>.ts).
 * A test of a test helper sits beside it (`commands/run-in-process.test.ts` ↔ `commands/run-in-process.ts`); `lint/`
 * holds checks of the repository itself. A test file anywhere else, or named after no module, fails here.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../..', import.meta.url).pathname;
const UNIT = join(ROOT, 'test/unit');
/** Files of src/commands/ that are helpers of every command, not commands. */
const COMMAND_HELPERS = new Set(['index', 'help-text', 'parsers', 'shared-flags']);

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative(UNIT, path)] : [];
  });
}

/**
 * What a test file under test/unit covers, as a path from the repository's root, or undefined when its path names
 * nothing. `exists` is asked about repository paths (the real file system, or a made-up one in the check's own test).
 */
function covered(path: string, exists: (repoPath: string) => boolean): string | undefined {
  const parts = path.split('/');
  const file = parts.pop() ?? '';
  const dir = parts.join('/');
  if (parts[0] === 'lint') return `test/unit/${path}`;
  if (parts[0] === 'commands' && parts.length === 2) {
    const command = parts[1] ?? '';
    const source = `src/commands/${command}.ts`;
    return !COMMAND_HELPERS.has(command) && exists(source) ? source : undefined;
  }
  const module = file.slice(0, file.indexOf('.'));
  const prefix = dir === '' ? '' : `${dir}/`;
  for (const candidate of [
    `src/${prefix}${module}.ts`,
    `src/${prefix}${module}/index.ts`,
    `test/unit/${prefix}${module}.ts`,
  ])
    if (exists(candidate)) return candidate;
  return undefined;
}

describe('a unit test lives at the path of what it covers', () => {
  it('maps each kind of path, and names nothing for a stray one (the check itself works)', () => {
    const tree = new Set(['src/api/client.ts', 'src/commands/wait.ts', 'src/commands/parsers.ts', 'test/unit/x/h.ts']);
    const exists = (path: string) => tree.has(path);
    expect(covered('api/client.test.ts', exists)).toBe('src/api/client.ts');
    expect(covered('api/client.get.test.ts', exists)).toBe('src/api/client.ts');
    expect(covered('commands/wait/outage.test.ts', exists)).toBe('src/commands/wait.ts');
    expect(covered('commands/parsers.test.ts', exists)).toBe('src/commands/parsers.ts');
    expect(covered('x/h.test.ts', exists)).toBe('test/unit/x/h.ts');
    expect(covered('lint/anything.test.ts', exists)).toBe('test/unit/lint/anything.test.ts');
    // Named after a scenario, not a module; a scenario of a helper; a command's scenario one folder too deep.
    expect(covered('commands/wait-outage.test.ts', exists)).toBeUndefined();
    expect(covered('commands/parsers/bytes.test.ts', exists)).toBeUndefined();
    expect(covered('commands/wait/outage/more.test.ts', exists)).toBeUndefined();
    expect(covered('api/client-get.test.ts', exists)).toBeUndefined();
  });

  it('every test file under test/unit names its module, command or helper', () => {
    const files = testFiles(UNIT);
    expect(files.length).toBeGreaterThan(150);
    const stray = files.filter((path) => covered(path, (repoPath) => existsSync(join(ROOT, repoPath))) === undefined);
    // Move it (git mv, then fix imports in a second commit) to test/unit/<dir>/<module>[.<aspect>].test.ts or
    // test/unit/commands/<command>/<scenario>.test.ts.
    expect(stray).toEqual([]);
  });
});

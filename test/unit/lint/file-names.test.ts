/**
 * One name, one meaning (src/README.md#names): no two files under src/ share a base name, so a path in a comment, a
 * stack line or an editor tab names one module. Allowed: `index.ts` and `types.ts` (a folder's entry and its types),
 * and a command's file beside its run function's (`commands/x.ts` ↔ `core/x.ts`: the same command in two layers).
 * The same under test/ (test/README.md says where each test lives), where the same role in parallel folders may share a
 * name: one scenario of several commands (`commands/show/job.test.ts`, `commands/retry/job.test.ts`). A helper is
 * named for what it does (`unit/commands/run-in-process.ts`, `e2e/spawn-cli.ts`). And across src/, test/ and
 * scripts/: a test helper or a script is not named like a module of another tree (`setup/after-each-checks.ts`, not
 * `settle.ts`, which src/core/submit/ has).
 */
import { readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../..', import.meta.url).pathname;
/** A folder's entry and its types: the same role in every folder. */
const EXEMPT = new Set(['index.ts', 'types.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

/** `src/commands/x.ts` with `src/core/x.ts`, and nothing else of that name. */
function isCommandPairing(paths: readonly string[]): boolean {
  if (paths.length !== 2) return false;
  const name = basename(paths[0] ?? '');
  return [...paths].sort().join(' ') === `src/commands/${name} src/core/${name}`;
}

/** The same scenario of several commands: every file of that name is `test/unit/commands/<command>/<name>`. */
function isScenarioOfCommands(paths: readonly string[]): boolean {
  return paths.every((path) => /^test\/unit\/commands\/[^/]+\/[^/]+$/.test(path));
}

const allowedInSrc = (name: string, same: readonly string[]): boolean => EXEMPT.has(name) || isCommandPairing(same);
const allowedInTest = (name: string, same: readonly string[]): boolean =>
  EXEMPT.has(name) || isScenarioOfCommands(same);

/** Each base name two files share against the rule, with their paths. */
function collisions(
  paths: readonly string[],
  allowed: (name: string, same: readonly string[]) => boolean = allowedInSrc,
): string[] {
  const byName = new Map<string, string[]>();
  for (const path of paths) byName.set(basename(path), [...(byName.get(basename(path)) ?? []), path]);
  return [...byName]
    .filter(([name, same]) => same.length > 1 && !allowed(name, same))
    .map(([name, same]) => `${name}: ${[...same].sort().join(', ')}`)
    .sort();
}

describe('file names under src/ say which module', () => {
  it('finds a shared name, and lets the exempt names and command pairings be (the check itself works)', () => {
    expect(collisions(['src/core/job/wait.ts', 'src/core/follow/wait.ts'])).toEqual([
      'wait.ts: src/core/follow/wait.ts, src/core/job/wait.ts',
    ]);
    expect(collisions(['src/commands/wait.ts', 'src/core/wait.ts', 'src/core/job/wait.ts'])).toHaveLength(1);
    expect(collisions(['src/commands/wait.ts', 'src/core/follow/wait.ts'])).toHaveLength(1);
    expect(collisions(['src/commands/api.ts', 'src/sandbox/api.ts'])).toHaveLength(1);
    expect(collisions(['src/commands/wait.ts', 'src/core/wait.ts'])).toEqual([]);
    expect(
      collisions(['src/core/items/index.ts', 'src/core/diff/index.ts', 'src/sandbox/types.ts', 'src/x/types.ts']),
    ).toEqual([]);
  });

  it('no two files of src/ share a base name, but for index.ts, types.ts and commands/x.ts ↔ core/x.ts', () => {
    const files = sourceFiles(join(ROOT, 'src'));
    expect(files.length).toBeGreaterThan(100);
    // A new file named like another: name it for what it does (`wait-loop.ts`, `journal-file.ts`, `retry-job.ts`).
    expect(collisions(files)).toEqual([]);
  });
});

describe('file names under test/ say which subject', () => {
  it('finds a shared name of two subjects, a tier helper included, and lets one scenario of several commands be', () => {
    const shared = ['test/e2e/journal.test.ts', 'test/unit/commands/retry/journal.test.ts'];
    expect(collisions(shared, allowedInTest)).toEqual([`journal.test.ts: ${shared.join(', ')}`]);
    const moduleAndScenario = ['test/unit/core/follow/follow.test.ts', 'test/unit/commands/wait/follow.test.ts'];
    expect(collisions(moduleAndScenario, allowedInTest)).toHaveLength(1);
    expect(
      collisions(['test/unit/commands/show/job.test.ts', 'test/unit/commands/retry/job.test.ts'], allowedInTest),
    ).toEqual([]);
    // Two helpers of different roles under one name: a stack line or a tab reading `helpers.ts` named either.
    expect(collisions(['test/e2e/helpers.ts', 'test/unit/commands/helpers.ts'], allowedInTest)).toHaveLength(1);
  });

  it('no two files of test/ share a base name unless they play the same role in parallel folders', () => {
    const files = sourceFiles(join(ROOT, 'test'));
    expect(files.length).toBeGreaterThan(200);
    // A new file named like another: name it for its subject (`journal-resume.test.ts`, `tty-prompt.test.ts`).
    expect(collisions(files, allowedInTest)).toEqual([]);
  });
});

describe('file names across src/, test/ and scripts/ say which one', () => {
  const allowedAcross = (name: string, same: readonly string[]): boolean =>
    allowedInSrc(name, same) || allowedInTest(name, same);

  it('finds a test helper or a script named like a module (the check itself works)', () => {
    expect(collisions(['src/core/submit/settle.ts', 'test/setup/settle.ts'], allowedAcross)).toHaveLength(1);
    expect(collisions(['scripts/listen-load.ts', 'test/load/listen-load.ts'], allowedAcross)).toHaveLength(1);
    expect(collisions(['src/commands/wait.ts', 'src/core/wait.ts', 'test/unit/x.test.ts'], allowedAcross)).toEqual([]);
  });

  it('no file of test/ or scripts/ shares a base name with a file of another of the three', () => {
    const files = ['src', 'test', 'scripts'].flatMap((dir) => sourceFiles(join(ROOT, dir)));
    // A helper or a script named like a module: name it for its own role (`after-each-checks.ts`, `load-listen.ts`).
    expect(collisions(files, allowedAcross)).toEqual([]);
  });
});

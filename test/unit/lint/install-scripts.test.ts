/**
 * A quiet install: npm (11.16 and later) lists, at the end of every `npm ci`, each dependency whose install script is not
 * covered by package.json's `allowScripts`. Every package the lockfile marks as having one must be named there, so a
 * fresh install prints no such warning (and keeps working once npm starts blocking unreviewed scripts).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface LockFile {
  packages: Record<string, { hasInstallScript?: boolean; dev?: boolean }>;
}

function packageName(path: string): string {
  return path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

describe('npm ci', () => {
  it('names every dependency with an install script in allowScripts', () => {
    const lock = JSON.parse(readFileSync(`${ROOT}package-lock.json`, 'utf8')) as LockFile;
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { allowScripts?: Record<string, boolean> };
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
      .map(([path]) => packageName(path));
    expect(withScripts.length).toBeGreaterThan(0);
    const uncovered = withScripts.filter((name) => pkg.allowScripts?.[name] === undefined);
    expect(uncovered).toEqual([]);
  });
});

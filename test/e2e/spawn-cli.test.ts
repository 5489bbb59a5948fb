/**
 * The harness's homes: a world's home shares the run's bundle code cache (test/setup/shared-code-cache.ts), so a spawned
 * taskctl starts warm once any home ran the same command; a home made alone is a first run's, with nothing in it.
 */
import { mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedHome, runCli, startWorld, suiteCodeCache } from './spawn-cli.js';

const codeCacheOf = (cacheDir: string) => join(cacheDir, 'compile', 'taskctl');

describe('homes and the bundle code cache', { concurrent: true, timeout: 60_000 }, () => {
  it('a command compiled in one home starts warm in another: the cache is read there, not written again', async () => {
    // A shared directory of this test's own: no other test's run of the same command can write it meanwhile.
    const shared = mkdtempSync(join(tmpdir(), 'taskctl-shared-cache-'));
    const [one, two] = [isolatedHome({ codeCache: shared }), isolatedHome({ codeCache: shared })];
    try {
      const first = await runCli(['completion', 'bash'], { env: one.env });
      expect(first.code, first.stderr).toBe(0);
      // Named by command word, Node and bundle path: the same file for every home.
      const files = readdirSync(codeCacheOf(two.env.TASKCTL_CACHE_DIR));
      expect(files).toEqual([expect.stringMatching(new RegExp(`^completion-${process.version}-${process.arch}-`))]);
      const file = join(shared, files[0] ?? '');
      const made = statSync(file);
      // taskctl writes the cache only when it found none or V8 refused it: untouched, the run in `two` started warm.
      expect(await runCli(['completion', 'bash'], { env: two.env })).toEqual(first);
      expect(statSync(file)).toMatchObject({ ino: made.ino, mtimeMs: made.mtimeMs });
      one.cleanup();
      expect(readdirSync(shared)).toEqual(files); // a home's cleanup removes its link, not the shared cache
    } finally {
      two.cleanup();
      rmSync(shared, { recursive: true, force: true });
    }
  });

  it("a world's home links the run's shared cache; a home made alone has nothing in it", async () => {
    const world = await startWorld({ itemMs: 0 });
    const alone = isolatedHome();
    try {
      const shared = suiteCodeCache();
      expect(shared).toBeDefined(); // vitest.config.ts runs test/setup/shared-code-cache.ts
      expect(realpathSync(codeCacheOf(world.home.env.TASKCTL_CACHE_DIR))).toBe(realpathSync(shared ?? ''));
      expect(readdirSync(alone.dir)).toEqual([]);
    } finally {
      alone.cleanup();
      await world.close();
    }
  });
});

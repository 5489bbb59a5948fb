/**
 * vitest global setup: one directory for the CLI bundle's code cache (src/boot/code-cache.ts), shared by the homes the
 * e2e harness makes for its worlds (test/e2e/spawn-cli.ts), removed after the run. Every test makes a fresh home, and a
 * home's first run of a command compiled the 1.3 MB bundle cold, then serialised a cache at exit that the home rarely
 * used again: ~0.07 s more CPU than a warm start (0.33 against 0.26 s), in most of the suite's spawns. Shared, each
 * command word is compiled cold about once per run. What a run does is the same either way: the cache is checked against the bundle it was made from, and a
 * cache V8 refuses is compiled over and rewritten whole (a concurrent run reads the old file or the new one).
 * Listed after scratch-on-tmpfs.ts, so the directory is on the RAM file system with the homes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared code cache directory (absent in a run without this setup): e2e/spawn-cli.ts links homes to it. */
    codeCacheDir?: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-code-cache-'));
  project.provide('codeCacheDir', dir);
  return () => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}

/**
 * Disk state shared by several processes: the cases that need a real second process (or mkfifo), moved out of the
 * unit tier, which spawns nothing. One process's locking (two holders, a dead owner's lock) stays in test/unit. The
 * other processes run the writers in fixtures/, bundled once by esbuild so that each starts as plain node (through
 * tsx each start cost over a second of CPU).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CompletionCacheStore } from '../../src/store/cache.js';
import { openConfig } from '../../src/store/config-file.js';

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'taskctl-store-locks-'));
  dir = join(root, 'cfg');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const open = (timeoutMs?: number) => openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {}, timeoutMs);

/** fixtures/NAME.ts bundled (src and its packages inlined) into a temp dir: NAME.mjs, run by plain node. */
let bundles: string;
beforeAll(async () => {
  bundles = mkdtempSync(join(tmpdir(), 'taskctl-store-locks-bundles-'));
  await build({
    entryPoints: ['cache-writer', 'config-writer'].map((name) =>
      fileURLToPath(new URL(`./fixtures/${name}.ts`, import.meta.url)),
    ),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir: bundles,
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
});
afterAll(() => rmSync(bundles, { recursive: true, force: true }));
const fixture = (name: string) => join(bundles, `${name}.mjs`);

describe('config file across processes', () => {
  it('refuses a FIFO as config.json at once instead of hanging', async () => {
    mkdirSync(dir, { mode: 0o700 });
    const made = spawnSync('mkfifo', [join(dir, 'config.json')]);
    if (made.status !== 0) return; // no mkfifo on this platform
    await expect(open()).rejects.toThrow(/is a FIFO \(named pipe\), not a regular file/);
  });

  it('a writer killed with SIGKILL while writing its temp file leaves the old file whole; the next write recovers', async () => {
    const config = await open();
    await config.set('default', 'output', 'json');
    const writer = fixture('config-writer');
    let caught = false;
    for (let attempt = 0; attempt < 5 && !caught; attempt++) {
      const child = spawn(process.execPath, [writer, dir, String(12 * 1024 * 1024)], {
        stdio: 'ignore',
      });
      const exited = new Promise((resolve) => child.on('exit', resolve));
      while (child.exitCode === null && child.signalCode === null && !caught) {
        if (readdirSync(dir).some((name) => name.endsWith('.tmp'))) {
          child.kill('SIGKILL');
          caught = true;
        } else await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await exited;
      if (!caught) await config.set('default', 'base-url', 'https://a.example'); // too quick to catch: again
    }
    expect(caught).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(expect.arrayContaining(['config.json', 'config.json.lock']));
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default.output).toBe('json');
    await (await open(2_000)).set('default', 'confirm-above', 7);
    expect((await open()).profile('default')).toMatchObject({ output: 'json', 'confirm-above': 7 });
    expect(readdirSync(dir)).toEqual(['config.json']);
  });
});

describe('completion cache across processes', () => {
  it('loses no update when five processes write at once (read-modify-write under the lock)', async () => {
    const cache = new CompletionCacheStore(root, () => 0);
    cache.account = 'account-a';
    const exits = await Promise.all(
      [0, 1, 2, 3, 4].map(
        (w) =>
          new Promise<number | null>((resolve) =>
            spawn(process.execPath, [fixture('cache-writer'), root, String(1 + w * 10), '10'], {
              stdio: 'inherit',
            }).on('exit', resolve),
          ),
      ),
    );
    expect(exits).toEqual([0, 0, 0, 0, 0]);
    expect(cache.read().tasks.map((t) => t.id)).toEqual(Array.from({ length: 50 }, (_, i) => 50 - i));
    expect(readdirSync(root)).toEqual(['completion.json']);
  });

  it('ignores a FIFO as the cache file: reads it as empty and an update skips it', () => {
    const notes: string[] = [];
    const cache = new CompletionCacheStore(
      root,
      () => 0,
      (message) => notes.push(message),
    );
    cache.account = 'account-a';
    if (spawnSync('mkfifo', [cache.path]).status !== 0) return; // no mkfifo on this platform
    expect(cache.freshPrices(1000, 'x')).toBeUndefined();
    cache.rememberServices([{ service: 'svc', pricing: 1 }], 'x');
    expect(notes.length).toBeGreaterThan(0);
    expect(notes[0]).toMatch(/completion cache ignored: the cache file .* is a FIFO/);
  });
});

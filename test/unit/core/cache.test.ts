import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { accountKey, CompletionCacheStore } from '../../../src/core/cache.js';
import { UsageError } from '../../../src/errors.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function store(now: { t: number }, dir = mkdtempSync(join(tmpdir(), 'taskctl-cache-'))) {
  dirs.push(dir);
  const cache = new CompletionCacheStore(dir, () => now.t);
  cache.account = 'account-a'; // what Context sets once the command's API settings are known
  return cache;
}

describe('CompletionCacheStore', () => {
  it('reuses prices only from the same server and only while fresh', () => {
    const now = { t: 1_000_000 };
    const cache = store(now);
    cache.rememberServices([{ service: 'svc', pricing: 3 }], 'https://a.example/api/v1');
    expect(cache.freshPrices(60_000, 'https://a.example/api/v1')).toEqual({ svc: 3 });
    expect(cache.freshPrices(60_000, 'https://b.example/api/v1')).toBeUndefined();
    now.t += 60_000;
    expect(cache.freshPrices(60_000, 'https://a.example/api/v1')).toBeUndefined();
  });

  it('keeps the 50 newest tasks, deduplicated by id', () => {
    const cache = store({ t: 0 });
    cache.rememberTasks(Array.from({ length: 40 }, (_, i) => ({ id: i + 1, service: 's', status: 'pending' })));
    cache.rememberTasks(Array.from({ length: 20 }, (_, i) => ({ id: i + 31, service: 's', status: 'completed' })));
    const tasks = cache.read().tasks;
    expect(tasks).toHaveLength(50);
    expect(tasks[0]).toEqual({ id: 50, service: 's', status: 'completed' });
    expect(new Set(tasks.map((t) => t.id)).size).toBe(50);
  });

  it("offers one account's tasks only, and another account's tasks replace them", () => {
    const a = store({ t: 0 });
    a.rememberTasks([{ id: 7, service: 's', status: 'completed' }]);
    expect(a.recentTasks().map((t) => t.id)).toEqual([7]);
    const b = store({ t: 0 }, dirs[0]);
    b.account = accountKey('https://a.example/api/v1', 'sk_other');
    expect(b.recentTasks()).toEqual([]);
    b.rememberTasks([{ id: 3, service: 's', status: 'pending' }]);
    expect(b.recentTasks().map((t) => t.id)).toEqual([3]);
    expect(a.recentTasks()).toEqual([]);
    const unknown = store({ t: 0 }, dirs[0]);
    unknown.account = undefined;
    unknown.rememberTasks([{ id: 9, service: 's', status: 'pending' }]);
    expect(unknown.recentTasks()).toEqual([]);
    expect(b.recentTasks().map((t) => t.id)).toEqual([3]);
  });

  it('keys an account by server and key, without holding the key', () => {
    const key = accountKey('https://a.example/api/v1', 'sk_live_secret');
    expect(key).not.toContain('secret');
    expect(accountKey('https://b.example/api/v1', 'sk_live_secret')).not.toBe(key);
    expect(accountKey('https://a.example/api/v1', 'sk_live_other')).not.toBe(key);
  });

  it('offers services only from the server that listed them', () => {
    const cache = store({ t: 0 });
    cache.rememberServices([{ service: 'svc', pricing: 3 }], 'https://a.example/api/v1');
    expect(cache.services('https://a.example/api/v1')).toEqual(['svc']);
    expect(cache.services('https://b.example/api/v1')).toEqual([]);
  });

  it('reads an absent or corrupt cache as empty', () => {
    const cache = store({ t: 0 });
    expect(cache.read()).toMatchObject({ services: [], tasks: [] });
  });
});

describe('CompletionCacheStore on disk', () => {
  it('loses no update when five processes write at once (read-modify-write under the lock)', async () => {
    const cache = store({ t: 0 });
    const writer = fileURLToPath(new URL('./fixtures/cache-writer.ts', import.meta.url));
    const exits = await Promise.all(
      [0, 1, 2, 3, 4].map(
        (w) =>
          new Promise<number | null>((resolve) =>
            spawn(process.execPath, ['--import', 'tsx', writer, dirs[0]!, String(1 + w * 10), '10'], {
              stdio: 'inherit',
            }).on('exit', resolve),
          ),
      ),
    );
    expect(exits).toEqual([0, 0, 0, 0, 0]);
    expect(cache.read().tasks.map((t) => t.id)).toEqual(Array.from({ length: 50 }, (_, i) => 50 - i));
    expect(readdirSync(dirs[0]!)).toEqual(['completion.json']);
  });

  it('refuses to read a symlinked or FIFO cache file (exit 2); an update skips it and never writes through', () => {
    const cache = store({ t: 0 });
    const target = join(dirs[0]!, 'target');
    writeFileSync(target, 'not yours');
    symlinkSync(target, cache.path);
    expect(() => cache.read()).toThrow(UsageError);
    expect(() => cache.read()).toThrow(/cache file .* is a symbolic link/);
    cache.rememberTasks([{ id: 1, service: 's', status: 'pending' }]);
    expect(readFileSync(target, 'utf8')).toBe('not yours');

    const fifoCache = store({ t: 0 });
    if (spawnSync('mkfifo', [fifoCache.path]).status !== 0) return;
    expect(() => fifoCache.freshPrices(1000, 'x')).toThrow(/is a FIFO/);
    fifoCache.rememberServices([{ service: 'svc', pricing: 1 }], 'x');
  });
});

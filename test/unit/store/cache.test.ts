import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { accountKey, CompletionCacheStore, MAX_CACHE_BYTES } from '../../../src/store/cache.js';
import { withFailingFs } from './failing-fs.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function store(now: { t: number }, dir = mkdtempSync(join(tmpdir(), 'taskctl-cache-'))) {
  dirs.push(dir);
  const cache = new CompletionCacheStore(dir, () => now.t);
  cache.account = 'account-a'; // what Context sets once the command's API settings are known
  return cache;
}

describe('CompletionCacheStore', () => {
  it('a cache file it cannot read is ignored, and the note (--verbose) names it in words, no errno name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'taskctl-cache-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'completion.json'), '{}');
    const notes: string[] = [];
    const cache = new CompletionCacheStore(
      dir,
      () => 0,
      (note) => notes.push(note),
    );
    const read = withFailingFs(
      (name) => (name === 'readFileSync' ? 'EIO' : undefined),
      () => cache.read(),
    );
    expect(read.services).toEqual([]);
    expect(notes).toEqual([
      `completion cache ignored: cannot read the cache file ${join(dir, 'completion.json')}: an input/output error`,
    ]);
  });

  it('reuses prices only from the same server and only while fresh', () => {
    const now = { t: 1_000_000 };
    const cache = store(now);
    cache.rememberServices([{ service: 'svc', pricing: 3 }], 'https://a.example/api/v1');
    expect(cache.freshPrices(60_000, 'https://a.example/api/v1')).toEqual({ svc: 3 });
    expect(cache.freshPrices(60_000, 'https://b.example/api/v1')).toBeUndefined();
    now.t += 60_000;
    expect(cache.freshPrices(60_000, 'https://a.example/api/v1')).toBeUndefined();
  });

  it(
    'runs without a cache directory that cannot be made (/proc, a dangling symlink), at once',
    { timeout: 2_000 },
    () => {
      const base = mkdtempSync(join(tmpdir(), 'taskctl-cache-'));
      dirs.push(base);
      symlinkSync(join(base, 'gone'), join(base, 'dangling'));
      for (const dir of ['/proc/nope/c', join(base, 'dangling', 'c')]) {
        const cache = new CompletionCacheStore(dir, () => 0);
        cache.account = 'account-a';
        // At once: synchronous with no sleep, so it either returns or spins.
        cache.rememberTasks([{ id: 1, service: 's', status: 'pending' }]);
        expect(cache.read().tasks).toEqual([]);
      }
    },
  );

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

/** A cache in a fresh directory on a clock at 0, with the notes it gives. */
function onDisk(): { notes: string[]; cache: CompletionCacheStore; dir: string } {
  const notes: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-cache-'));
  dirs.push(dir);
  const cache = new CompletionCacheStore(
    dir,
    () => 0,
    (message) => notes.push(message),
  );
  return { notes, cache, dir };
}

describe('CompletionCacheStore on disk', () => {
  it('ignores a symlinked cache file (a note, never exit 2); an update skips it and never writes through', () => {
    const { notes, cache, dir } = onDisk();
    cache.account = 'account-a';
    const target = join(dir, 'target');
    writeFileSync(target, 'not yours');
    symlinkSync(target, cache.path);
    expect(cache.read()).toMatchObject({ services: [], tasks: [] });
    expect(notes).toEqual([expect.stringMatching(/completion cache ignored: the cache file .* is a symbolic link/)]);
    cache.rememberTasks([{ id: 1, service: 's', status: 'pending' }]);
    expect(readFileSync(target, 'utf8')).toBe('not yours');
    expect(lstatSync(cache.path).isSymbolicLink()).toBe(true);
  });

  it('a poisoned cache (a >4 MiB service name) is never written; an oversized or corrupt file is ignored and rewritten', () => {
    const { notes, cache, dir } = onDisk();
    const huge = 'x'.repeat(4 * 1024 * 1024 + 1);
    cache.rememberServices(
      [
        { service: huge, pricing: 1 },
        { service: 'ok', pricing: 2 },
      ],
      'u',
    );
    expect(statSync(cache.path).size).toBeLessThan(MAX_CACHE_BYTES);
    expect(cache.services('u')).toEqual(['ok']);
    // A file grown past the bound by anything else: ignored with a note that says so, then replaced by the update.
    writeFileSync(cache.path, JSON.stringify({ services: [huge] }));
    expect(cache.services('u')).toEqual([]);
    expect(notes[0]).toMatch(
      /completion cache ignored: the cache file .* is 4,194,32\d bytes, more than the 1,048,576/,
    );
    expect(notes[0]).not.toMatch(/not a regular file/);
    cache.rememberServices([{ service: 'svc', pricing: 3 }], 'u');
    expect(cache.freshPrices(1000, 'u')).toEqual({ svc: 3 });
    writeFileSync(cache.path, '{not json');
    expect(new CompletionCacheStore(dir, () => 0).read().services).toEqual([]);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CompletionCacheStore } from '../../../src/core/cache.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function store(now: { t: number }) {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-cache-'));
  dirs.push(dir);
  return new CompletionCacheStore(dir, () => now.t);
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

  it('reads an absent or corrupt cache as empty', () => {
    const cache = store({ t: 0 });
    expect(cache.read()).toMatchObject({ services: [], tasks: [] });
  });
});

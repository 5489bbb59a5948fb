/**
 * A small local cache for shell completion: service names and recent task ids, refreshed as a side effect of
 * commands that already fetched them, so TAB never needs the network. Best effort: failures are ignored.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';

const CacheSchema = z.object({
  services: z.array(z.string()).default([]),
  /** Price per item by service, which server they came from, and when: `create` reuses them for a few minutes. */
  prices: z.record(z.string(), z.number()).default({}),
  pricesFrom: z.string().default(''),
  pricesAt: z.number().default(0),
  tasks: z.array(z.object({ id: z.number(), service: z.string(), status: z.string() })).default([]),
  updatedAt: z.number().default(0),
});
export type CompletionCache = z.infer<typeof CacheSchema>;

const MAX_TASKS = 50;

export class CompletionCacheStore {
  readonly path: string;
  constructor(
    private readonly dir: string,
    private readonly now: () => number,
  ) {
    this.path = join(dir, 'completion.json');
  }

  read(): CompletionCache {
    try {
      return CacheSchema.parse(JSON.parse(readFileSync(this.path, 'utf8')));
    } catch {
      return { services: [], prices: {}, pricesFrom: '', pricesAt: 0, tasks: [], updatedAt: 0 };
    }
  }

  /** Services as `baseUrl` listed them: names for completion, prices for `create`'s estimate. */
  rememberServices(services: ReadonlyArray<{ service: string; pricing: number }>, baseUrl: string): void {
    this.write({
      ...this.read(),
      services: services.map((s) => s.service),
      prices: Object.fromEntries(services.map((s) => [s.service, s.pricing])),
      pricesFrom: baseUrl,
      pricesAt: this.now(),
    });
  }

  /** Prices `baseUrl` gave less than `maxAgeMs` ago, or undefined: another server's prices never count. */
  freshPrices(maxAgeMs: number, baseUrl: string): Record<string, number> | undefined {
    const cache = this.read();
    const age = this.now() - cache.pricesAt;
    const fresh = cache.pricesFrom === baseUrl && age >= 0 && age < maxAgeMs;
    return fresh && Object.keys(cache.prices).length > 0 ? cache.prices : undefined;
  }

  /** Newest first, deduplicated by id, at most 50. */
  rememberTasks(tasks: ReadonlyArray<{ id: number; service: string; status: string }>): void {
    const current = this.read();
    const byId = new Map<number, { id: number; service: string; status: string }>();
    for (const task of [...tasks, ...current.tasks]) {
      if (!byId.has(task.id)) byId.set(task.id, { id: task.id, service: task.service, status: task.status });
    }
    const merged = [...byId.values()].sort((a, b) => b.id - a.id).slice(0, MAX_TASKS);
    this.write({ ...current, tasks: merged });
  }

  private write(cache: CompletionCache): void {
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const temp = `${this.path}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify({ ...cache, updatedAt: this.now() }), { mode: 0o600 });
      renameSync(temp, this.path);
    } catch {
      // The cache only speeds up completion; never fail a command over it.
    }
  }
}

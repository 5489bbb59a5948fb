/**
 * Schemas are built on first use (start-up): loading the modules that hold them builds none, so a command pays
 * only for the schemas it parses with (`balance`: one; building all of them cost ~10 ms of every start-up).
 */
import { describe, expect, it, vi } from 'vitest';

/** Every zod builder called (z.object, z.string, ...), except z.lazy, which defers the others, and z.config (src/lib/zod.ts). */
const built = vi.hoisted(() => [] as string[]);
vi.mock('zod', async (importOriginal) => {
  const z = await importOriginal<Record<string, unknown>>();
  const counted = Object.entries(z).map(([name, value]) => {
    if (typeof value !== 'function' || name === 'lazy' || name === 'config' || !/^[a-z]/.test(name))
      return [name, value];
    return [
      name,
      (...args: unknown[]) => {
        built.push(name);
        return (value as (...a: unknown[]) => unknown)(...args);
      },
    ];
  });
  return Object.fromEntries(counted) as unknown;
});

describe('schemas are built on first use', () => {
  it('loading the API, config and cache schemas builds none; a balance answer builds only its own', async () => {
    const schemas = await import('../../../src/api/schemas.js');
    await import('../../../src/store/config-schema.js');
    await import('../../../src/store/config-file.js');
    await import('../../../src/store/cache.js');
    expect(built).toEqual([]);

    expect(schemas.BalanceResponseSchema.parse({ success: true, data: { balance: 5, currency: 'coins' } })).toEqual({
      success: true,
      data: { balance: 5, currency: 'coins' },
    });
    expect(built.length).toBeGreaterThan(0);
    expect(built).not.toContain('discriminatedUnion'); // the webhook events
    expect(built).not.toContain('custom'); // a task's items
  });
});

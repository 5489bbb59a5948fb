import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as zod from 'zod';
import { BalanceResponseSchema } from '../../../src/api/schemas.js';
import * as z from '../../../src/lib/zod.js';

const SRC = join(import.meta.dirname, '../../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('zod as taskctl configures it (src/lib/zod.ts)', () => {
  it('builds and parses without generated code: jitless is on once a schema module is loaded', () => {
    expect(zod.config().jitless).toBe(true);
    expect(BalanceResponseSchema.parse({ success: true, data: { balance: 5, currency: 'coins' } })).toMatchObject({
      data: { balance: 5, currency: 'coins' },
    });
  });

  it("is the only value import of zod in the CLI's source (types excepted; the sandbox has its own bundle)", () => {
    const importsZod = /^import (?!type )[^;]*from 'zod';$/m;
    const offenders = sourceFiles(SRC)
      .map((file) => relative(SRC, file))
      .filter((file) => !file.startsWith('sandbox/') && file !== join('lib', 'zod.ts'))
      .filter((file) => importsZod.test(readFileSync(join(SRC, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it("re-exports zod alone: taskctl's own helpers are not in the z namespace, where they would read as zod API", () => {
    expect(Object.keys(z).filter((name) => !(name in zod))).toEqual([]);
  });

  it("words each kind of issue in taskctl's words, never the library's; a schema's own message still wins", () => {
    const words = (schema: zod.ZodType, value: unknown) => schema.safeParse(value).error?.issues[0]?.message;
    expect(words(z.number(), 'x')).toBe('should be a number, not a string');
    expect(words(z.object({ a: z.string() }), {})).toBe('missing (should be a string)');
    expect(words(z.string().startsWith('sk_'), 'pk_1')).toBe('should start with "sk_"');
    expect(words(z.string().endsWith('.json'), 'a.txt')).toBe('should end with ".json"');
    expect(words(z.string().includes('@'), 'a')).toBe('should contain "@"');
    expect(words(z.string().lowercase(), 'A')).toBe('should be lower case');
    expect(words(z.array(z.string()), null)).toBe('should be an array, not null');
    expect(words(z.boolean(), 1)).toBe('should be true or false, not a number');
    expect(words(z.string().min(1), '')).toBe('should not be empty');
    expect(words(z.string().max(3), 'abcd')).toBe('should have at most 3 characters');
    expect(words(z.array(z.number()).min(2), [1])).toBe('should have at least 2 entries');
    expect(words(z.number().min(5), 1)).toBe('should be at least 5');
    expect(words(z.number().positive(), 0)).toBe('should be more than 0');
    expect(words(z.number().lt(3), 3)).toBe('should be less than 3');
    expect(words(z.enum(['a', 'b']), 'c')).toBe('should be one of "a", "b"');
    expect(words(z.literal('a'), 'c')).toBe('should be "a"');
    expect(words(z.strictObject({}), { x: 1, y: 2 })).toBe('has fields not allowed here: "x", "y"');
    expect(words(z.string().regex(/^a/), 'b')).toBe('is not in the expected form');
    expect(words(z.union([z.string(), z.number()]), null)).toBe('matches none of the accepted forms');
    expect(words(z.number().multipleOf(5), 3)).toBe('should be a multiple of 5');
    expect(
      words(
        z.string().refine(() => false, 'our own words'),
        'x',
      ),
    ).toBe('our own words');
    for (const message of [words(z.number(), 'x'), words(z.enum(['a']), 'b')])
      expect(message).not.toMatch(/Invalid|expected|received|Too (small|big)/);
  });
});

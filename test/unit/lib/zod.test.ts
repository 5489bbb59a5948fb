import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as zod from 'zod';
import { BalanceResponseSchema } from '../../../src/api/schemas.js';

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
});

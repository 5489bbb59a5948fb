/**
 * The dashboard served by the built sandbox (dist/sandbox.cjs) carries the status vocabulary as scripts/build.ts
 * generated it from lib/task-state.ts: every word with its tone.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { statusToneTable } from '../../src/lib/task-state.js';

const built = createRequire(import.meta.url)('../../dist/sandbox.cjs') as typeof import('../../src/sandbox/index.js');

describe('the built dashboard', () => {
  it('serves the vocabulary generated at build time', async () => {
    const sandbox = await built.startSandbox({ port: 0 });
    try {
      const script = await (await fetch(`${sandbox.origin}/dashboard/app.js`)).text();
      const copy = /var STATUS_TONES = (\{[^\n]*\});/.exec(script)?.[1];
      expect(copy && (JSON.parse(copy) as unknown)).toEqual(statusToneTable());
    } finally {
      await sandbox.close();
    }
  });
});

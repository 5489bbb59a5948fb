/**
 * The campaigns' short forms and the two overlap cases (`npm run campaign`, docs/development.md#campaigns): outside the
 * suite's `vitest run`, which they cost about 30 s of two cores.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/campaign/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 30_000,
    setupFiles: ['test/setup/after-each-checks.ts'],
  },
});

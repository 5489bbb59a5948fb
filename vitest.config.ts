import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for a condition (a guard, not a measure): vitest's 1 s ran out on a loaded machine.
    expect: { poll: { timeout: 10_000 } },
    // e2e tests spawn processes; two cores on CI.
    maxWorkers: 4,
    // After each test: the harness's sandboxes closed and every mocked request checked as used (test/setup/settle.ts).
    setupFiles: ['test/setup/settle.ts'],
    // After the summary, each skip's reason (a missing shell, an older Node, running as root): test/skip-reason.ts.
    reporters: ['default', './test/setup/skip-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/sandbox/**/*.test.ts'],
          exclude: ['test/unit/api/schemas-lazy.test.ts', 'test/unit/main-without-commander.test.ts'],
          // One module graph per worker instead of per file: these files mock no module and keep no global state
          // (each builds its own clock, IO and sandbox), and importing src afresh for each of ~75 files cost ~15 s.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: [
            'test/e2e/**/*.test.ts',
            'test/hardening/**/*.test.ts',
            'test/campaign/**/*.test.ts',
            'test/browser/**/*.test.ts',
          ],
          exclude: ['test/hardening/secrets.test.ts'],
          // Shared module graph as well: each file starts its own sandboxes and servers and mocks nothing.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          // Mock node:crypto, zod and commander for the modules they import: a module graph of their own.
          include: [
            'test/hardening/secrets.test.ts',
            'test/unit/api/schemas-lazy.test.ts',
            'test/unit/main-without-commander.test.ts',
          ],
        },
      },
    ],
  },
});

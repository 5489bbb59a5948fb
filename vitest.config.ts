import { defineConfig } from 'vitest/config';
import SpreadLongFiles from './test/setup/spread-long-files.js';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for a condition (a guard, not a measure): vitest's 1 s ran out on a loaded machine.
    expect: { poll: { timeout: 10_000 } },
    // Two cores on CI, four workers: the files that mostly wait (terminals, spawned processes, real-time budgets) run
    // as one lane (below), and that lane's files add up to more wall time than the run, so two of them often run at
    // once; with a worker for each core beside them, the cores stay busy (idle 7-8 → 1-2 core-seconds a run, vitest
    // about 1.4 s faster in interleaved pairs: docs/performance.md, "A nineteenth look"). Each worker pays once for
    // the module graph, the first sandbox and fast-check's tables: a fifth worker gained nothing more.
    maxWorkers: 4,
    // Each file's transform kept on disk (node_modules/.experimental-vitest-cache, keyed by the file's content): every
    // run after the first on a machine skips Vite's transforms of the unchanged files, about 4 CPU-s and 2-3 s of a
    // 52-56 s run in two interleaved pairs (docs/performance.md, "A fourteenth look"). A clean install starts without it.
    experimental: { fsModuleCache: true },
    // The workers' garbage collector (docs/performance.md, "An eleventh look"): a young generation of 32 MB per
    // semi-space instead of Node 20's 16 (the unit files allocate freely: a command run is a home, a sandbox, a client;
    // each scavenge also promotes what would soon have died), and no helper threads, which on two cores shared by three
    // workers only contend with them. And no bytecode flushing: V8 drops the bytecode of functions unused for a few
    // major collections, and a worker that runs file after file calls the same product code again and compiles it
    // anew (about 4% of the unit tiers' CPU in six pairs of runs; the bytecode kept is a few MB).
    execArgv: ['--max-semi-space-size=32', '--single-threaded-gc', '--no-flush-bytecode'],
    // After each test: the sandboxes `runTaskctl` started closed and every mocked request checked as used (test/setup/after-each-checks.ts).
    setupFiles: ['test/setup/after-each-checks.ts'],
    // Temporary files on a RAM file system where there is one (journals are fsynced): test/setup/scratch-on-tmpfs.ts.
    // One bundle code cache for the e2e worlds' homes, so spawns start warm: test/setup/shared-code-cache.ts.
    globalSetup: ['test/setup/scratch-on-tmpfs.ts', 'test/setup/shared-code-cache.ts'],
    // After the summary, each skip's reason (a missing shell, an older Node, running as root): test/skip-reason.ts.
    reporters: ['default', './test/setup/skip-reporter.ts'],
    // The files that mostly wait (terminals, spawned processes, a browser, real-time budgets) as one lane beside the
    // files that compute, so the cores stay busy; the same order with or without the results cache, as on CI
    // (test/setup/spread-long-files.ts).
    sequence: { sequencer: SpreadLongFiles },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          // The campaigns run outside the suite: `npm run campaign` (test/campaign/vitest.config.ts).
          include: [
            'test/unit/**/*.test.ts',
            'test/sandbox/**/*.test.ts',
            'test/e2e/**/*.test.ts',
            'test/hardening/**/*.test.ts',
            'test/browser/**/*.test.ts',
          ],
          exclude: ['test/unit/api/schemas.lazy.test.ts', 'test/unit/store/lock-file.steps.test.ts'],
          // One module graph per worker instead of per file: these files mock no module and keep no global state
          // (each builds its own clock, IO, sandboxes and servers), and importing src afresh for each file cost ~15 s.
          // One project for all of them, so a worker serves any file (a project of its own had workers of its own,
          // each importing the graph again).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          // Files that mock a module their subject imports, so they need a module graph of their own (in a shared worker
          // the subject is long loaded): zod, to see that loading the schemas builds none; node:fs, to look at a lock
          // file between every two steps of taking it.
          include: ['test/unit/api/schemas.lazy.test.ts', 'test/unit/store/lock-file.steps.test.ts'],
        },
      },
    ],
  },
});

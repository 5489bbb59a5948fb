/**
 * After the run, one line per reason a test was skipped ("3 skipped: zsh is not installed"), read from the
 * `[skipped: …]` its name carries (test/skip-reason.ts); a skip without one is listed by name, so none is silent.
 */
import type { Reporter, TestModule } from 'vitest/node';

const REASON = /\[skipped: ([^\]]+)\]/;

export default class SkipReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    const counts = new Map<string, number>();
    for (const module of testModules) {
      for (const test of module.children.allTests('skipped')) {
        const reason = REASON.exec(test.fullName)?.[1] ?? `no reason given: ${test.fullName}`;
        counts.set(reason, (counts.get(reason) ?? 0) + 1);
      }
    }
    for (const [reason, count] of counts) process.stdout.write(` ${count} skipped: ${reason}\n`);
  }
}

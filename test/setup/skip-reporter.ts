/**
 * After the run, one line per reason a test was skipped ("3 skipped: zsh is not installed"), read from the
 * `[skipped: …]` its name carries (test/skip-reason.ts); the others (left out by `-t`, or an `it.skip`) counted in one line.
 */
import type { Reporter, TestModule } from 'vitest/node';

const REASON = /\[skipped: ([^\]]+)\]/;

export default class SkipReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    const counts = new Map<string, number>();
    for (const module of testModules) {
      for (const test of module.children.allTests('skipped')) {
        const reason = REASON.exec(test.fullName)?.[1] ?? 'left out by a filter (-t) or an it.skip';
        counts.set(reason, (counts.get(reason) ?? 0) + 1);
      }
    }
    for (const [reason, count] of counts) process.stdout.write(` ${count} skipped: ${reason}\n`);
  }
}

/**
 * vitest sequencer: the order files start in (docs/performance.md#the-test-suite), the same on every machine, with or
 * without vitest's results cache, so a run on CI (which has none) can be replayed locally in its order.
 *
 * Most files compute all their time; some mostly wait (on a spawned process, a terminal's screen, a budget in real
 * time, npm, a browser). Waiting files side by side on most of the workers leave the cores idle for seconds. So the
 * waiting files (WAITING_FILES, each with the seconds it waits) run as one lane: each starts once the files before it
 * in the order hold as large a share of the computing files' weight as the waiting files before it hold of the lane's
 * seconds, so a waiting file starts about when the one before it is done waiting, while the other workers compute.
 * The lane's files take more wall time than the run (each also computes a little), so two of them often overlap: the
 * fourth worker (vitest.config.ts) keeps a worker computing for each core meanwhile. Within the lane, the longest
 * first; the lane ends a little before the computing files, so the run ends on short unit files, not on one long file
 * alone.
 *
 * The computing files of the long tiers (in-process sandboxes and servers, spawned processes that are all CPU) are
 * spread among the unit files, over the first three fifths of the unit files' bytes; within each kind, the largest
 * file first. The files of the 'isolated' project stay first: a worker of the shared project is kept for the next file
 * only when that file is also one of the shared project's.
 */
import { statSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The long tiers, in the order their computing files start. */
const LONG_TIERS = ['test/browser/', 'test/hardening/', 'test/e2e/', 'test/sandbox/'];
/** The share of the unit files' bytes over which the long tiers' computing files start. */
const LONG_FILES_SPAN = 0.6;
/** The share of the computing files' bytes over which the waiting files start. */
const WAITING_FILES_SPAN = 0.95;

/**
 * The files that mostly wait, each with the seconds it waits on a quiet two-core host: its wall time less its CPU and
 * that of the processes it waited for (a run with TASKCTL_TEST_CPU, docs/performance.md#the-test-suite). Every file
 * that drives a real terminal is one (test/unit/lint/suite-order.test.ts).
 */
export const WAITING_FILES: Readonly<Record<string, number>> = {
  'test/e2e/tty-results.test.ts': 5,
  'test/hardening/create-timeouts.test.ts': 4.5,
  'test/browser/dashboard.test.ts': 3.7,
  'test/e2e/pack.test.ts': 3.4,
  'test/hardening/wire.test.ts': 3.4,
  'test/e2e/tty-resume.test.ts': 3.4,
  'test/hardening/secrets.test.ts': 2.8,
  'test/e2e/tty.test.ts': 2.8,
  'test/e2e/completion.test.ts': 2.1,
  'test/e2e/jobs.test.ts': 2.1,
  'test/e2e/tty-widths.test.ts': 1.7,
  'test/e2e/journal-kill.test.ts': 1.6,
  'test/e2e/retry.test.ts': 1.2,
  'test/e2e/tty-prompt.test.ts': 1.1,
  'test/hardening/load.test.ts': 1,
  'test/e2e/tty-unsized.test.ts': 1,
  'test/e2e/tty-interrupt.test.ts': 1,
  'test/unit/webhook/listener.delivery.test.ts': 0.9,
  'test/unit/webhook/listener.test.ts': 0.9,
  'test/e2e/quick-start.test.ts': 0.9,
  'test/e2e/webhook.test.ts': 0.7,
  'test/sandbox/webhooks.test.ts': 0.7,
  'test/e2e/github-report.test.ts': 0.7,
  'test/e2e/tty-tables.test.ts': 0.3,
  'test/e2e/tty-help.test.ts': 0.2,
};

/** The seconds the file at `path` (absolute) spends mostly waiting, or 0 for a file that computes. */
export function waitingSeconds(path: string): number {
  const normal = path.replaceAll('\\', '/');
  const name = Object.keys(WAITING_FILES).find((file) => normal.endsWith(`/${file}`));
  return name === undefined ? 0 : WAITING_FILES[name]!;
}

function tier(spec: TestSpecification): number {
  const path = spec.moduleId.replaceAll('\\', '/');
  const index = LONG_TIERS.findIndex((folder) => path.includes(`/${folder}`));
  return index === -1 ? LONG_TIERS.length : index;
}

/**
 * `into` with `spread` merged in, in their own orders: each item of `spread` starts once the items of `into` before it
 * hold the share of `span` × `into`'s weight that the items of `spread` before it hold of `spread`'s weight (with the
 * default weights, the k-th of n starts once k/n × `span` went before it).
 */
export function spreadInto<T>(
  into: T[],
  spread: T[],
  span: number,
  weight: (item: T) => number = () => 1,
  spreadWeight: (item: T) => number = () => 1,
): T[] {
  const total = into.reduce((sum, item) => sum + weight(item), 0);
  const spreadTotal = spread.reduce((sum, item) => sum + spreadWeight(item), 0);
  const merged: T[] = [];
  let done = 0;
  let next = 0;
  let spreadDone = 0;
  for (const item of into) {
    while (next < spread.length && (spreadDone / spreadTotal) * span * total <= done) {
      spreadDone += spreadWeight(spread[next]!);
      merged.push(spread[next++]!);
    }
    merged.push(item);
    done += weight(item);
  }
  return [...merged, ...spread.slice(next)];
}

export default class SpreadLongFiles extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sizes = new Map(files.map((spec) => [spec, statSync(spec.moduleId).size]));
    const size = (spec: TestSpecification) => sizes.get(spec) ?? 0;
    // Array.prototype.sort is stable: the order of the largest first is kept within each list below.
    const ordered = [...files].sort((a, b) => size(b) - size(a));
    const isolated = ordered.filter((spec) => spec.project.config.isolate);
    const shared = ordered.filter((spec) => !spec.project.config.isolate);
    const waiting = shared
      .filter((spec) => waitingSeconds(spec.moduleId) > 0)
      .sort((a, b) => waitingSeconds(b.moduleId) - waitingSeconds(a.moduleId));
    const computing = shared.filter((spec) => !waiting.includes(spec));
    const long = computing.filter((spec) => tier(spec) < LONG_TIERS.length).sort((a, b) => tier(a) - tier(b));
    const unit = computing.filter((spec) => tier(spec) === LONG_TIERS.length);
    const rest = spreadInto(unit, long, LONG_FILES_SPAN, size);
    return [
      ...isolated,
      ...spreadInto(rest, waiting, WAITING_FILES_SPAN, size, (spec) => waitingSeconds(spec.moduleId)),
    ];
  }
}

/**
 * vitest sequencer: the order files start in (docs/performance.md#the-test-suite), the same on every machine, with or
 * without vitest's results cache, so a run on CI (which has none) can be replayed locally in its order.
 *
 * The files of the long tiers (real processes, real terminals, a browser, loopback servers in real time) are spread
 * among the unit files, over the first three fifths of the unit files' bytes. A long file spends much of its time
 * waiting (on a spawned process, a terminal's screen, a budget in real time) while a unit file is all CPU, so with both
 * kinds running at once the two cores stay busy; started all first (as this sequencer did, and as vitest's own order by
 * last duration does), three waiting files at once left the cores idle for seconds at a time. They still all start well
 * before the end, so the run does not end on one long file alone. Within the long files, the terminal files (tmux: each
 * waits on screens for seconds) are spread among the others, so two of them seldom run at once. Within each kind, the
 * largest file first.
 *
 * The files of the 'isolated' project stay first: a worker of the shared project is kept for the next file only when
 * that file is also one of the shared project's.
 */
import { readFileSync, statSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The long tiers, in the order their files start: the browser's one file is among the longest of all. */
const LONG_TIERS = ['test/browser/', 'test/hardening/', 'test/e2e/', 'test/sandbox/'];
/** The share of the unit files' bytes over which the long files start. */
const LONG_FILES_SPAN = 0.6;
/** The share of the long files over which the terminal files start (none among the last long files). */
const TERMINAL_FILES_SPAN = 0.75;

function tier(spec: TestSpecification): number {
  const path = spec.moduleId.replaceAll('\\', '/');
  const index = LONG_TIERS.findIndex((folder) => path.includes(`/${folder}`));
  return index === -1 ? LONG_TIERS.length : index;
}

/** Whether the test file at `path` drives a real terminal (it imports test/e2e/tmux.ts). */
export const isTerminalFile = (path: string) => readFileSync(path, 'utf8').includes("/tmux.js'");

/**
 * `into` with `spread` merged in, in their own orders: the k-th of n files of `spread` starts once the files of `into`
 * before it hold k/n × `span` of `into`'s weight.
 */
export function spreadInto<T>(into: T[], spread: T[], span: number, weight: (item: T) => number = () => 1): T[] {
  const total = into.reduce((sum, item) => sum + weight(item), 0);
  const merged: T[] = [];
  let done = 0;
  let next = 0;
  for (const item of into) {
    while (next < spread.length && (next / spread.length) * span * total <= done) merged.push(spread[next++]!);
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
    const long = shared.filter((spec) => tier(spec) < LONG_TIERS.length).sort((a, b) => tier(a) - tier(b));
    const unit = shared.filter((spec) => tier(spec) === LONG_TIERS.length);
    const terminal = long.filter((spec) => isTerminalFile(spec.moduleId));
    const longSpread = spreadInto(
      long.filter((spec) => !terminal.includes(spec)),
      terminal,
      TERMINAL_FILES_SPAN,
    );
    return [...isolated, ...spreadInto(unit, longSpread, LONG_FILES_SPAN, size)];
  }
}

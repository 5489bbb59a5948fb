/**
 * vitest sequencer: the tiers whose files are long (real processes, real terminals, a browser, loopback servers in
 * real time) start first, so the run ends on short unit files that fill both cores, not on one long file alone.
 * Within a tier, vitest's own order: the longest first where its results cache knows the durations (a local rerun),
 * the largest file first where it does not (CI has no cache). The files of the 'isolated' project stay first: a
 * worker of the shared project is kept for the next file only when that file is also one of the shared project's.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONG_TIERS = ['test/hardening/', 'test/e2e/', 'test/browser/', 'test/sandbox/'];

function tier(spec: TestSpecification): number {
  const path = spec.moduleId.replaceAll('\\', '/');
  const index = LONG_TIERS.findIndex((folder) => path.includes(`/${folder}`));
  return index === -1 ? LONG_TIERS.length : index;
}

export default class LongTiersFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const rank = (spec: TestSpecification) => (spec.project.config.isolate ? 0 : 1 + tier(spec));
    // Array.prototype.sort is stable: vitest's order is kept within a rank.
    return ordered.sort((a, b) => rank(a) - rank(b));
  }
}

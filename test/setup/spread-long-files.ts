/**
 * vitest sequencer. Where vitest's results cache knows every file's last duration (a local rerun, each run of
 * `npm run test:load` after the first), its own order: the longest first. Where it does not (CI has no cache), vitest
 * would start the largest files first, and small long files (a real terminal, a signal) started among the last; then
 * the tiers whose files are long (real processes, real terminals, a browser, loopback servers in real time) start
 * first, the largest first within a tier, so the run ends on short unit files that fill both cores, not on one long
 * file alone. The files of the 'isolated' project stay first: a worker of the shared project is kept for the next
 * file only when that file is also one of the shared project's.
 */
import { relative } from 'node:path';
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
    const known = (spec: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`);
    if (files.every(known)) return ordered;
    const rank = (spec: TestSpecification) => (spec.project.config.isolate ? 0 : 1 + tier(spec));
    // Array.prototype.sort is stable: vitest's order is kept within a rank.
    return ordered.sort((a, b) => rank(a) - rank(b));
  }
}

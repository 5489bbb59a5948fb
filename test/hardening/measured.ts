/** Spawned runs of the built bin under `/usr/bin/time` (the hostile rows that measure peak RSS). */
import { join } from 'node:path';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { BIN, runProcess, type CliResult } from '../e2e/harness.js';

/**
 * The bin under `/usr/bin/time`: its result and peak RSS in MB (NaN when /usr/bin/time is missing). Wall time is
 * measured by `scripts/hostile-matrix.ts`, not asserted in the suite.
 */
export async function runMeasured(
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<CliResult & { rssMb: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-rss-'));
  const rssFile = join(dir, 'rss');
  try {
    const result = await runProcess('/usr/bin/time', ['-f', '%M', '-o', rssFile, process.execPath, BIN, ...args], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...env },
      timeoutMs,
      label: `taskctl ${args.join(' ')}`,
    });
    const lines = readFileSync(rssFile, 'utf8').trim().split('\n');
    const kb = Number(lines[lines.length - 1]);
    // /usr/bin/time reports a non-zero exit on its first line ("Command exited with non-zero status 8").
    return { ...result, rssMb: kb / 1024 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

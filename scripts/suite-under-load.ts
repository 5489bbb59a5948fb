/**
 * The suite on a machine under load ("green 5 runs out of 5 while two busy loops per core load the machine", see
 * docs/performance.md#the-test-suite): starts `--loops-per-core` busy loops per core (default 2), runs vitest `--runs`
 * times (default 5), and prints each run's result, its wall time, vitest's own duration and the load average when it
 * started. Arguments after a second `--` go to vitest (a folder, `--bail 1`; not `--maxWorkers`, which vitest 4.1 does not
 * pass on to the projects of vitest.config.ts: its `maxWorkers` is the one that counts). The loops are killed when the
 * script ends, however it ends.
 *
 *   npm run test:load [-- --runs 5 --loops-per-core 2 [-- <vitest arguments>]]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals: vitestArgs } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, 'loops-per-core': { type: 'string', default: '2' } },
  allowPositionals: true,
});
const runs = Number(values.runs);
const loops = Number(values['loops-per-core']) * availableParallelism();

const LOG_DIR = join(tmpdir(), 'taskctl-test-load');
const busy: ChildProcess[] = [];
const stopLoops = () => busy.forEach((child) => child.kill('SIGKILL'));
process.on('exit', stopLoops);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));
// Each loop also ends by itself once this script is gone (even SIGKILLed): it checks now and then for its parent.
const LOOP = 'const p = process.ppid; for (let i = 1; ; i++) if (i % 5e7 === 0 && process.ppid !== p) process.exit();';
for (let i = 0; i < loops; i++) busy.push(spawn(process.execPath, ['-e', LOOP], { stdio: 'ignore' }));
console.log(`${loops} busy loops on ${availableParallelism()} cores; ${runs} runs of the suite`);

const results: string[] = [];
for (let run = 1; run <= runs; run++) {
  const load = (loadavg()[0] ?? 0).toFixed(1);
  const started = Date.now();
  const vitest = spawnSync('npx', ['vitest', 'run', '--reporter', 'dot', ...vitestArgs], {
    encoding: 'utf8',
    env: process.env,
    maxBuffer: 256 * 1024 * 1024,
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  const text = `${vitest.stdout}${vitest.stderr}`.replace(/\u001b\[[0-9;]*m/g, '');
  const failed = (text.match(/^ *FAIL .*$/gm) ?? []).map((line) => line.trim());
  const summary = /Tests\s+(.*)$/m.exec(text)?.[1] ?? '(no summary)';
  const duration = /Duration\s+(\S+)/.exec(text)?.[1] ?? '?';
  const result = vitest.status === 0 ? 'green' : `exit ${vitest.status}`;
  const line = `run ${run}: ${result} in ${seconds} s (vitest ${duration}, load average ${load} at the start) — ${summary}`;
  results.push(line);
  console.log(line);
  for (const failure of new Set(failed)) console.log(`  ${failure}`);
  if (vitest.status !== 0) {
    // The whole output of a failed run, for the reasons (the summary above names only the tests).
    mkdirSync(LOG_DIR, { recursive: true });
    const log = join(LOG_DIR, `run-${run}.log`);
    writeFileSync(log, text);
    console.log(`  output: ${log}`);
  }
}
stopLoops();
const green = results.filter((line) => line.includes(': green')).length;
console.log(`${green} of ${runs} runs green under ${loops} busy loops`);
process.exitCode = green === runs ? 0 : 1;

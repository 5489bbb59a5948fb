// `create` of one item for `npm run bench` (section `create`), called by scripts/bench.ts: this build beside the build
// before every create was a job (commit BEFORE), in the same run, interleaved (the bench's timeCommands: hyperfine in
// small blocks, else a spawn loop), each against the same lasting sandbox (no rate limit, items instant). The build
// before is made once under .bench/before-<commit>/ from the commit's tree (`git archive`, so the repository gains no
// worktree) with this checkout's node_modules hard-linked (`cp -al`), and kept for the next run. Without the commit in
// the git history (a shallow clone, a tarball) the row is skipped, saying why. The target: no more than 10% slower.
// A second row gives the CPU time of each (`/usr/bin/time`), which a loaded machine moves less than wall time.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScaleBenchTools } from './bench-scale.ts';

/** What the bench hands this section: the scale section's tools, and its interleaved timing of commands. */
export type CreateBenchTools = Pick<
  ScaleBenchTools,
  'row' | 'skip' | 'log' | 'notes' | 'run' | 'hasTool' | 'NODE' | 'BIN' | 'ROOT' | 'WORK' | 'cliEnv' | 'loadSandbox'
> & {
  timeCommands: (
    commands: Record<string, string[]>,
    env: Record<string, string>,
  ) => Promise<Record<string, { median: number; p25: number; p75: number; runs: number }>>;
};

/** The last commit before every create was a job. */
const BEFORE = '2c52bde';
const TARGET = 1.1;
const SERVICE = 'domain_check_availability';
const ms = (x: number): string => `${Math.round(x)} ms`;

/** The bin of the build before jobs, built now unless an earlier bench left it; a string saying why not otherwise. */
async function buildBefore(tools: CreateBenchTools): Promise<{ bin: string } | string> {
  const { run, log, ROOT, WORK } = tools;
  const dir = join(WORK, `before-${BEFORE}`);
  const stamp = join(dir, '.built');
  const bin = join(dir, 'bin', 'taskctl.js');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === BEFORE) return { bin };
  if (!(await tools.hasTool('git'))) return 'git not found';
  const found = await run('git', ['-C', ROOT, 'cat-file', '-e', `${BEFORE}^{commit}`], { env: process.env });
  if (found.code !== 0) return `commit ${BEFORE} is not in this checkout's git history (a shallow clone?)`;
  log(`  building the build before jobs (${BEFORE}) in ${dir}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const steps: Array<[string, string[]]> = [
    ['sh', ['-c', `git -C "$1" archive ${BEFORE} | tar -x -C "$2"`, 'sh', ROOT, dir]],
    ['cp', ['-al', join(ROOT, 'node_modules'), join(dir, 'node_modules')]],
    [tools.NODE, [join(dir, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(dir, 'scripts', 'build.ts')]],
  ];
  for (const [command, args] of steps) {
    const result = await run(command, args, { env: { ...process.env }, timeoutMs: 600_000 });
    if (result.code !== 0) return `building ${BEFORE} failed: ${result.stderr.trim().split('\n').pop() ?? ''}`;
  }
  if (!existsSync(bin)) return `building ${BEFORE} left no ${bin}`;
  writeFileSync(stamp, BEFORE);
  return { bin };
}

const CPU_RUNS = 15;

/** Median CPU time (user + system, ms) of each command, from `/usr/bin/time`, runs interleaved. */
async function cpuTimes(
  tools: CreateBenchTools,
  commands: { before: string[]; now: string[] },
  env: Record<string, string>,
): Promise<{ before: number; now: number }> {
  const times: { before: number[]; now: number[] } = { before: [], now: [] };
  for (let i = 0; i < CPU_RUNS; i++) {
    for (const name of i % 2 === 0 ? (['before', 'now'] as const) : (['now', 'before'] as const)) {
      const result = await tools.run('/usr/bin/time', ['-f', '%U %S', ...commands[name]], { env });
      const [user = NaN, system = NaN] = (result.stderr.trim().split('\n').pop() ?? '').split(' ').map(Number);
      if (result.code !== 0 || Number.isNaN(user + system)) throw new Error(`${name}: ${result.stderr.trim()}`);
      times[name].push((user + system) * 1000);
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  return { before: median(times.before), now: median(times.now) };
}

export async function benchCreate(tools: CreateBenchTools): Promise<void> {
  const { row, skip, log, notes, NODE, BIN, WORK, cliEnv } = tools;
  const figure = '`create` of one item (a job: journal, lock, balance beside the snapshot)';
  log(`create: one item, this build vs the build before jobs (${BEFORE})`);
  const before = await buildBefore(tools);
  if (typeof before === 'string') {
    skip(figure, `no build before jobs to compare with: ${before}`);
    return;
  }
  const { startSandbox } = await tools.loadSandbox();
  const sandbox = await startSandbox({ port: 0, rateLimit: 0, itemMs: 0, balance: 100_000_000 });
  try {
    // Each build with a home of its own (their cache and state files differ), through `env`, on both sides alike.
    const side = (name: string, bin: string): string[] => {
      const home = join(WORK, `create-${name}`);
      rmSync(home, { recursive: true, force: true });
      const dirs = ['CONFIG', 'CACHE', 'STATE'].map((kind) => `TASKCTL_${kind}_DIR=${join(home, kind.toLowerCase())}`);
      return ['env', ...dirs, NODE, bin, 'create', SERVICE, 'bench-one.example.com', '-y', '-q'];
    };
    const env = cliEnv({ TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey });
    const times = await tools.timeCommands({ before: side('before', before.bin), now: side('now', BIN) }, env);
    const [was, now] = [times.before, times.now];
    if (!was || !now) throw new Error('no timing');
    const ratio = now.median / was.median;
    row(
      figure,
      `${ms(now.median)} (p25–p75 ${ms(now.p25)}–${ms(now.p75)}, ${now.runs} runs)`,
      `build before jobs (${BEFORE}) ${ms(was.median)} (p25–p75 ${ms(was.p25)}–${ms(was.p75)})`,
      `${ratio.toFixed(2)}×`,
      `≤ ${TARGET.toFixed(2)}×`,
      ratio <= TARGET,
    );
    notes.push(
      `create: one item to a lasting sandbox, medians of runs interleaved with the build of ${BEFORE} (before every create was a job); each create of this build keeps a journal in its state directory`,
    );
    if (await tools.hasTool('/usr/bin/time', ['-f', '%U', 'true'])) {
      const cpu = await cpuTimes(tools, { before: side('before', before.bin), now: side('now', BIN) }, env);
      row(
        `${figure}: CPU time (user + system), which load on the machine moves less than wall time`,
        `${ms(cpu.now)} (${CPU_RUNS} runs)`,
        `build before jobs (${BEFORE}) ${ms(cpu.before)}`,
        `${(cpu.now / cpu.before).toFixed(2)}×`,
      );
    }
  } finally {
    await sandbox.close();
  }
}

// The CPU a command costs in process, as the unit tests run it (docs/performance.md#the-test-suite): `main()` with the
// in-memory IO and fake clock of test/unit/commands/run-in-process.ts, each run against a fresh in-process sandbox and
// in a fresh temporary home (config, caches, state directory), temporary files on a RAM file system as in the suite
// (test/setup/scratch-on-tmpfs.ts). Prints the CPU (user + system, process.cpuUsage) of one run of each command,
// averaged over RUNS after a warm-up, and apart from them what the harness costs a test (a sandbox started and closed,
// a temporary directory made and removed).
//
//   npx tsx scripts/command-cost.ts [RUNS] [COMMAND]    (default 200 runs of every command; COMMAND: create, balance…)
//
// Run under tsx, every `await import()` of the CLI goes through tsx's loader thread and costs more than the command
// (41 ms a create against 14 ms): so the script bundles itself with esbuild (.bench/command-cost.mjs, the
// dependencies left as packages) and runs the bundle in a plain Node, where a lazy import costs what it costs in the
// built CLI. To profile: `node --cpu-prof .bench/command-cost.mjs 300 create` after one run.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNS = Number(process.argv[2] ?? 200);
const ONLY = process.argv[3];
const WARMUP = 20;

if (import.meta.url.endsWith('.ts')) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const bundle = join(root, '.bench', 'command-cost.mjs');
  mkdirSync(join(root, '.bench'), { recursive: true });
  const { build } = await import('esbuild');
  await build({
    entryPoints: [fileURLToPath(import.meta.url)],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
  });
  execFileSync(process.execPath, [bundle, String(RUNS), ...(ONLY === undefined ? [] : [ONLY])], { stdio: 'inherit' });
} else {
  await measureAll();
}

async function measureAll(): Promise<void> {
  const { startSandbox } = await import('../src/sandbox/index.ts');
  const { FakeClock } = await import('../test/clock.ts');
  const { mockApi, runTaskctl, settleTest } = await import('../test/unit/commands/run-in-process.ts');
  // Temporary files on a RAM file system where there is one, as in the suite.
  const ram = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/command-cost-') : undefined;
  if (ram !== undefined) process.env.TMPDIR = ram;
  const cpuMs = (): number => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const start = (clock: InstanceType<typeof FakeClock>) =>
    startSandbox({ port: 0, itemMs: 0, rateLimit: 0, clock, balance: 10_000_000, dialects: [], clockSkewMs: 0 });

  /** Runs `argv` RUNS times after a warm-up, each against a fresh sandbox (its start not counted); CPU ms a run. */
  const commandCost = async (argv: (i: number) => string[]): Promise<number> => {
    let total = 0;
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const clock = new FakeClock();
      const sandbox = await start(clock);
      const env = { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey };
      const home = mkdtempSync(join(tmpdir(), 'command-cost-home-'));
      const before = cpuMs();
      const result = await runTaskctl(argv(i), { env, clock, home });
      if (i >= WARMUP) total += cpuMs() - before;
      rmSync(home, { recursive: true, force: true });
      await sandbox.close();
      if (result.code !== 0) throw new Error(`${argv(i).join(' ')}: exit ${result.code}\n${result.stderr}`);
    }
    return total / RUNS;
  };

  /** `balance` against undici's MockAgent (`mockApi`), as most command tests run it: the mock's cost is in it. */
  const mockedBalance = async (): Promise<number> => {
    let total = 0;
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const api = mockApi();
      api.reply('GET', '/balance', 200, { success: true, data: { balance: 5, currency: 'coins' } });
      const before = cpuMs();
      const result = await runTaskctl(['balance', '-o', 'json'], { api });
      if (i >= WARMUP) total += cpuMs() - before;
      await settleTest();
      if (result.code !== 0) throw new Error(`balance (MockAgent): exit ${result.code}\n${result.stderr}`);
    }
    return total / RUNS;
  };

  /** What worldEachTest costs a test: a sandbox started and closed, a temporary directory made and removed. */
  const harnessCost = async (): Promise<number> => {
    let total = 0;
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const before = cpuMs();
      const sandbox = await start(new FakeClock());
      const dir = mkdtempSync(join(tmpdir(), 'command-cost-world-'));
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
      if (i >= WARMUP) total += cpuMs() - before;
    }
    return total / RUNS;
  };

  const commands: Record<string, () => Promise<number>> = {
    create: () =>
      commandCost((i) => ['create', 'domain_check_availability', `a${i}.com`, `b${i}.com`, `c${i}.com`, '--yes', '-q']),
    balance: () => commandCost(() => ['balance', '-o', 'json']),
    list: () => commandCost(() => ['list', '-o', 'json']),
    mocked: mockedBalance,
    harness: harnessCost,
  };
  const label: Record<string, string> = {
    create: 'create (one chunk, 3 items)',
    mocked: 'balance (MockAgent)',
    harness: 'harness (sandbox, temp dir)',
  };
  try {
    for (const [name, measure] of Object.entries(commands)) {
      if (ONLY !== undefined && name !== ONLY) continue;
      const ms = await measure();
      console.log(`${(label[name] ?? name).padEnd(30)} ${ms.toFixed(2).padStart(6)} ms of CPU a run (${RUNS} runs)`);
    }
  } finally {
    if (ram !== undefined) rmSync(ram, { recursive: true, force: true });
  }
}

/**
 * An in-process sandbox on loopback and `main()` runs sharing one clock: by default the one fake clock
 * (test/clock.ts), so time moves only when the command or the sandbox sleeps and no test waits real time. The
 * campaigns (test/campaign/world.ts) build the same world on their scaled clocks.
 */
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, beforeEach } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import type { Clock } from '../../../src/lib/time.js';
import { ctrlCWhen, FakeClock } from '../../clock.js';
import { createTask } from '../../sandbox/sandbox-calls.js';
import { runTaskctl, type RunOptions, type RunResult } from './run-in-process.js';

interface SandboxTask {
  id: number;
  service: string;
  status: string;
  total_items: number;
  created_at: string;
  items?: Array<{ target: string; status: string }>;
}

interface Fault {
  method?: string;
  path?: string;
  kind: 'status' | 'delay' | 'reset-before' | 'reset-after' | 'truncate' | 'non-json';
  count?: number;
  status?: number;
  delayMs?: number;
}

export interface World<C extends Clock = FakeClock> {
  sandbox: RunningSandbox;
  /**
   * The connection pool every `run` shares (unless it brings its own `dispatcher`), kept alive from run to run: a run
   * that made its own pool paid for a connection and a pool each time, about a third of a short command's CPU in
   * process, over a thousand runs of the suite. The product's own pool, built by each run, is what the tests of
   * `sandboxRun` and the e2e tier meet. Replaced when the sandbox restarts (`restartWithoutState`).
   */
  pool: Agent;
  clock: C;
  run: (argv: string[], options?: Omit<RunOptions, 'env' | 'clock'>) => Promise<RunResult>;
  env: Record<string, string>;
  tasks: () => Promise<SandboxTask[]>;
  /**
   * Every item of the sandbox's tasks, each with how many tasks hold it (exactly-once checks); the tasks of `skip` are
   * not read (a busy account's tasks of another client, whose items the test knows: reading a hundred of them cost more
   * than the rest of such a check).
   */
  itemCounts: (skip?: ReadonlySet<number>) => Promise<Map<string, number>>;
  /** How many tasks the sandbox holds, without reading them (`tasks()` reads and checks every one). */
  taskCount: () => Promise<number>;
  /** POST /tasks requests the sandbox has received so far. */
  posts: () => Promise<number>;
  fault: (fault: Fault) => Promise<void>;
  clearFaults: () => Promise<void>;
  /** Sets the account's balance (a create that costs more is then refused, 402). */
  setBalance: (balance: number) => Promise<void>;
  /** Rotates the sandbox's API key (the one in `env` is then refused, 401); returns the new key. */
  rotateKey: () => Promise<string>;
  /**
   * A task of another client, POSTed straight to the service's API with the world's key: for a test whose subject is
   * what taskctl meets on the account, not how the task came (a taskctl create costs its journal, ledger and locks).
   */
  createTask: (service: string, items: string[]) => Promise<void>;
  close: () => Promise<void>;
}

interface WorldOptions {
  dialects?: string[];
  clockSkewMs?: number;
  /** Requests a minute the sandbox allows (and states in `X-RateLimit-*`); default 0, none. */
  rateLimit?: number;
  /** The length of the sandbox's rate-limit window, ms (`--rate-window`); default a minute. */
  rateWindowMs?: number;
  /** Virtual milliseconds each item takes (`slow-` items 10×); default 0, so a task is done as it is made. */
  itemMs?: number;
  /** The most items the sandbox takes in one task (`--max-items`); default its own. */
  maxItems?: number;
}

/** The world on `clock`, shared by the sandbox and every run; default a new FakeClock (each sleep moves time on at once). */
export async function startSandboxWorld(options?: WorldOptions): Promise<World>;
export async function startSandboxWorld<C extends Clock>(options: WorldOptions & { clock: C }): Promise<World<C>>;
export async function startSandboxWorld(options: WorldOptions & { clock?: Clock } = {}): Promise<World<Clock>> {
  const clock = options.clock ?? new FakeClock();
  const sandbox = await startSandbox({
    port: 0,
    itemMs: options.itemMs ?? 0,
    rateLimit: options.rateLimit ?? 0,
    ...(options.rateWindowMs === undefined ? {} : { rateWindowMs: options.rateWindowMs }),
    ...(options.maxItems === undefined ? {} : { maxItems: options.maxItems }),
    clock,
    balance: 10_000_000,
    dialects: options.dialects ?? [],
    clockSkewMs: options.clockSkewMs ?? 0,
  });
  const env = { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey };
  // undici's request rather than fetch: the campaign makes hundreds of these calls, and fetch costs several times more.
  // The world's sandbox as it is now: restartWithoutState puts another in its place.
  const admin = async (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> => {
    const response = await request(`${world.sandbox.origin}/__sandbox${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const json: unknown = await response.body.json();
    if (response.statusCode >= 300)
      throw new Error(`admin ${method} ${path}: ${response.statusCode} ${JSON.stringify(json)}`);
    return json;
  };
  const world: World<Clock> = {
    sandbox,
    pool: new Agent(),
    clock,
    env,
    run: (argv, runOptions = {}) =>
      runTaskctl(argv, {
        ...('dispatcher' in runOptions ? {} : { dispatcher: world.pool }),
        ...runOptions,
        env,
        clock,
      }),
    tasks: async () => ((await admin('GET', '/state')) as { tasks: SandboxTask[] }).tasks,
    async itemCounts(skip = new Set<number>()) {
      const counts = new Map<string, number>();
      for (const { id } of ((await admin('GET', '/state')) as { tasks: SandboxTask[] }).tasks) {
        if (skip.has(id)) continue;
        const { task } = (await admin('GET', `/tasks/${id}`)) as { task: { items: Array<{ target: string }> } };
        for (const item of task.items) counts.set(item.target, (counts.get(item.target) ?? 0) + 1);
      }
      return counts;
    },
    taskCount: async () => ((await admin('GET', '/state?tasks=false')) as { taskCount: number }).taskCount,
    posts: async () =>
      ((await admin('GET', '/stats')) as { requests: Record<string, number> }).requests['POST /api/v1/tasks'] ?? 0,
    fault: async (fault) => {
      await admin('POST', '/faults', fault);
    },
    clearFaults: async () => {
      await admin('DELETE', '/faults');
    },
    setBalance: async (balance) => {
      await admin('POST', '/balance', { balance });
    },
    rotateKey: async () => ((await admin('POST', '/rotate-key')) as { apiKey: string }).apiKey,
    createTask: async (service, items) => {
      await postTask(world.sandbox, service, items);
    },
    // The world's sandbox now: one restarted in its place (restartWithoutState) is the one closed.
    close: async () => {
      await world.sandbox.close();
      await world.pool.destroy();
    },
  };
  return world;
}

/**
 * A task of another client POSTed straight to `sandbox`'s API with its key (`world.createTask`, for a sandbox of
 * `sandboxRun`): its id. For a test whose subject is what a command does with tasks on the account, not how they came.
 */
export async function postTask(sandbox: RunningSandbox, service: string, items: string[]): Promise<number> {
  const { status, body } = await createTask(sandbox, items, service);
  if (status !== 201) throw new Error(`POST /tasks: ${status} ${JSON.stringify(body)}`);
  return (body as { data: { id: number } }).data.id;
}

/**
 * The world's sandbox restarted `afterMs` later on the same port (a restart's usual way), without --state unless
 * `stateFile` is given, allowing `rateLimit` requests a minute (0: none): no task, ids from 1 again, the same key. It
 * takes the old one's place as the world's `sandbox`
 * (the world's close closes it).
 */
export async function restartWithoutState(
  world: World,
  afterMs = 3_600_000,
  stateFile?: string,
  rateLimit = 0,
): Promise<RunningSandbox> {
  const port = Number(new URL(world.sandbox.url).port);
  await world.sandbox.close();
  // The old sandbox's connections end with it: the next run connects to the new one afresh.
  await world.pool.destroy();
  world.pool = new Agent();
  world.clock.advance(afterMs);
  const restarted = await startSandbox({
    ...{ port, itemMs: 0, rateLimit, clock: world.clock, balance: 10_000_000 },
    ...(stateFile !== undefined && { stateFile }),
  });
  if (restarted.url !== world.sandbox.url) throw new Error(`restarted on ${restarted.url}, not ${world.sandbox.url}`);
  world.sandbox = restarted;
  return restarted;
}

/**
 * A fresh world and an empty temporary directory (named `prefix…`) for each test of the file, closed and removed after
 * it; `use` hands both to the file's own variables.
 */
export function worldEachTest(prefix: string, use: (world: World, dir: string) => void): void {
  let world: World | undefined;
  let dir: string | undefined;
  beforeEach(async () => {
    world = await startSandboxWorld();
    dir = mkdtempSync(join(tmpdir(), prefix));
    use(world, dir);
  });
  afterEach(async () => {
    await world?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
}

/**
 * `argv` in `home` on the world's clock, stopped by Ctrl-C at its first wait of a second or more (the landing wait of
 * a chunk in doubt, a poll): what it printed. The faults that make that wait are the caller's.
 */
export async function ctrlCAtFirstLongWait(world: World, argv: string[], home: string): Promise<RunResult> {
  const controller = new AbortController();
  return runTaskctl(argv, {
    env: world.env,
    home,
    clock: ctrlCWhen(world.clock, controller, (ms) => ms >= 1000),
    signal: controller.signal,
  });
}

/**
 * A chunked create or retry (`run`, given the clock and signal to run with) stopped in doubt: its first POST answered,
 * its second reset before it reaches the service, and Ctrl-C at the run's first wait of 2 s or more (the check of
 * that chunk). What it printed; the faults are cleared after it, and its exit code is the caller's to check.
 */
export async function stoppedInChunk2Check(
  world: World,
  run: (stop: { clock: Clock; signal: AbortSignal }) => Promise<RunResult>,
): Promise<RunResult> {
  // A delay of nothing: a fault meets one request, so the first POST passes and the second is the one reset.
  await world.fault({ method: 'POST', path: '/tasks', kind: 'delay', delayMs: 0 });
  await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-before' });
  const controller = new AbortController();
  const result = await run({
    clock: ctrlCWhen(world.clock, controller, (ms) => ms >= 2000),
    signal: controller.signal,
  });
  await world.clearFaults();
  return result;
}

/**
 * `argv` (a create or retry in `home`) with its POST met by `fault` (`reset-before`: lost before reaching the service;
 * `reset-after`: acted on, its answer lost), stopped by Ctrl-C 1 s into the check of that POST: exit 130, the job's
 * chunk in doubt. Returns the job's id, from the hint it printed.
 */
export async function stoppedByCtrlC(
  world: World,
  argv: string[],
  home: string,
  fault: 'reset-before' | 'reset-after',
): Promise<string> {
  await world.fault({ method: 'POST', path: '/tasks', kind: fault });
  const first = await ctrlCAtFirstLongWait(world, argv, home);
  if (first.code !== 130) throw new Error(`expected exit 130, got ${first.code}: ${first.stderr}`);
  const stopped = /taskctl resume (j-[0-9a-z]+)(?: --yes)?$/m.exec(first.stderr)?.[1];
  if (stopped === undefined) throw new Error(`no resume hint: ${first.stderr}`);
  await world.clearFaults();
  return stopped;
}

/**
 * `argv` in `home` (the layout `runTaskctl` gives it) with stdout closed after `okWrites` writes, as `… -q | head -1`:
 * the run stops between chunks (exit 14), nothing in doubt. Returns its exit code and stderr.
 */
export async function withClosedStdout(
  world: World,
  argv: string[],
  home: string,
  okWrites: number,
): Promise<{ code: number; stderr: string }> {
  const { brokenStdout } = await import('./broken-stdout.js');
  const { main } = await import('../../../src/main.js');
  const { createMemoryStream } = await import('../../../src/output/memory-io.js');
  const stderr = createMemoryStream();
  const code = await main(argv, {
    io: {
      stdout: brokenStdout(okWrites),
      stderr,
      stdin: {
        isTTY: true,
        async *[Symbol.asyncIterator]() {
          /* a terminal that sends nothing */
        },
      },
    },
    env: {
      ...world.env,
      TASKCTL_CONFIG_DIR: join(home, 'config'),
      TASKCTL_CACHE_DIR: join(home, 'cache'),
      TASKCTL_STATE_DIR: join(home, 'state'),
    },
    clock: world.clock,
    signal: new AbortController().signal,
    random: () => 0.5,
  });
  return { code, stderr: stderr.text() };
}

/**
 * A superseded job in `home`: a create of `items` in 2 chunks stopped by Ctrl-C with its chunk 1 in doubt (its POST
 * lost before reaching the service), its job record then dated 2 hours back (a long job, started long before that
 * send); then the same create with `--reuse-window 1h`, which reaches that request but not the job's start, so it does
 * not continue the job (core/submit/same-work.ts): it waits for that request, takes chunk 1 over, and the job whole
 * (hand-over.ts). Returns the stopped job, the re-run's job and the re-run's stderr.
 */
export async function supersededJob(
  world: World,
  home: string,
  items: readonly string[],
): Promise<{ stopped: string; rerun: string; stderr: string }> {
  const create = [
    'create',
    'domain_check_availability',
    ...items,
    '--chunk-size',
    String(items.length / 2),
    '-y',
    '-q',
  ];
  const stopped = await stoppedByCtrlC(world, create, home, 'reset-before');
  startedBefore(home, stopped, 2 * 3_600_000);
  const again = await runTaskctl([...create, '--reuse-window', '1h'], { env: world.env, clock: world.clock, home });
  if (again.code !== 0) throw new Error(`the re-run: exit ${again.code}: ${again.stderr}`);
  const rerun = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(again.stderr)?.[1];
  if (rerun === undefined || rerun === stopped) throw new Error(`the re-run is no job of its own: ${again.stderr}`);
  return { stopped, rerun, stderr: again.stderr };
}

/** Job `id` of `home`'s state directory dated `ms` back (its job record's `created_at`): a job started long before. */
export function startedBefore(home: string, id: string, ms: number): void {
  const journal = join(home, 'state', 'jobs', `${id}.jsonl`);
  const [first = '', ...rest] = readFileSync(journal, 'utf8').split('\n');
  const job = JSON.parse(first) as { created_at: string };
  job.created_at = new Date(Date.parse(job.created_at) - ms).toISOString();
  writeFileSync(journal, [JSON.stringify(job), ...rest].join('\n'));
}

/**
 * A job of four one-item chunks (a.com … d.com) stopped after chunk 1, its balance run out (the balance's read failing
 * meanwhile, so the guard before the first POST lets it start), in the state directory of `run`: its id. The balance
 * is 100 again afterwards. The read-only state directory's and the pruned copy's scenarios start from it.
 */
export async function jobStoppedByBalance(
  world: World,
  run: (argv: string[]) => Promise<{ code: number; stderr: string }>,
  service: string,
): Promise<string> {
  await world.setBalance(1);
  await world.fault({ method: 'GET', path: '/balance', kind: 'status', status: 503, count: 100 });
  const stopped = await run(['create', service, 'a.com', 'b.com', 'c.com', 'd.com', '--chunk-size', '1', '-y']);
  if (stopped.code !== 6) throw new Error(`the job's create ended ${stopped.code}, not 6: ${stopped.stderr}`);
  await world.clearFaults();
  await world.setBalance(100);
  return /taskctl resume (j-[0-9a-z]+)/.exec(stopped.stderr)?.[1] ?? '';
}

/**
 * `jobStoppedByBalance` (in `dir`'s state directory, `dir/state`), then finished by a copy of that state directory
 * (`dir/NEW`, as a read-only state directory's refusal advises) and removed there by `jobs --prune`: its id, and the
 * copy's journal (removed). The scenarios of a job that ended elsewhere start from it.
 */
export async function jobEndedInPrunedCopy(
  world: World,
  run: (argv: string[], env?: Record<string, string>) => Promise<{ code: number; stderr: string }>,
  service: string,
  dir: string,
): Promise<{ id: string; copyJournal: string }> {
  const id = await jobStoppedByBalance(world, run, service);
  const copy = join(dir, 'NEW');
  cpSync(join(dir, 'state'), copy, { recursive: true });
  const resumed = await run(['resume', id, '-y'], { TASKCTL_STATE_DIR: copy });
  if (resumed.code !== 0) throw new Error(`the copy's resume ended ${resumed.code}: ${resumed.stderr}`);
  const pruned = await run(['jobs', '--prune'], { TASKCTL_STATE_DIR: copy });
  if (!pruned.stderr.includes('removed 1 finished job')) throw new Error(`the copy was not pruned: ${pruned.stderr}`);
  return { id, copyJournal: join(realpathSync(copy), 'jobs', `${id}.jsonl`) };
}

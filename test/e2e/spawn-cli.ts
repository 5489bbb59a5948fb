/** E2E harness: spawns the real bin/taskctl.js (built dist/) against a sandbox on port 0, with an isolated environment. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { systemClock, type Clock } from '../../src/lib/time.js';
import { FakeClock } from '../clock.js';
import { createTask as postToSandbox } from '../sandbox/sandbox-calls.js';
import { runTaskctl } from '../unit/commands/run-in-process.js';
import { waitFor } from '../wait-for.js';

/** Waits on an event (a line printed, a request seen) with a bound that fails saying what it saw. */
export { waitFor } from '../wait-for.js';

export interface ExitOfOptions {
  /** How long the process may take to end on a loaded machine; default 20 s. */
  timeoutMs?: number;
  /** What it printed so far, for the failure message. */
  describe: () => string;
  /**
   * `close` (default): exited and its output read to the end. `exit`: exited, for a child whose pipes nobody reads
   * to their end (they would keep `close` from coming).
   */
  on?: 'close' | 'exit';
}

/**
 * How a spawned child ended, with a bound of its own: past `timeoutMs` it is killed (SIGKILL) and the test fails with
 * what it printed, not with vitest's "Test timed out". Call it before the child can have ended (right after the signal
 * that ends it, or before its output is awaited); an end already past is found too.
 */
export async function exitOf(
  child: ChildProcess,
  options: ExitOfOptions,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const { timeoutMs = 20_000, on = 'close' } = options;
  let ended: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = child.exitCode !== null || child.signalCode !== null;
  const streamsClosed = [child.stdin, child.stdout, child.stderr].every((stream) => stream === null || stream.closed);
  if (exited && (on === 'exit' || streamsClosed)) ended = { code: child.exitCode, signal: child.signalCode };
  else child.once(on, (code: number | null, signal: NodeJS.Signals | null) => (ended = { code, signal }));
  try {
    return await waitFor(() => ended, {
      timeoutMs,
      describe: () => `process ${child.pid} still running (killed now); it printed: ${options.describe()}`,
    });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

export const BIN = fileURLToPath(new URL('../../bin/taskctl.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  stdin?: string | Buffer;
  timeoutMs?: number;
  cwd?: string;
}

/** A temporary HOME/config/cache per test file, so nothing touches the developer's real config. */
export interface IsolatedHome {
  dir: string;
  env: { HOME: string; TASKCTL_CONFIG_DIR: string; TASKCTL_CACHE_DIR: string; TASKCTL_STATE_DIR: string };
  cleanup: () => void;
}

/**
 * A fresh home: nothing in it, as on a first run (the tests of start-up and its caches need that). `codeCache`: a
 * directory its bundle code cache (`compile/taskctl` in the cache directory) is linked to, shared with other homes, so
 * a spawned taskctl starts warm once any of them ran the same command (`startWorld` passes `suiteCodeCache()`); the
 * rest of the home is its own.
 */
export function isolatedHome(options: { codeCache?: string | undefined } = {}): IsolatedHome {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-e2e-'));
  const cacheDir = join(dir, 'cache');
  if (options.codeCache !== undefined) {
    // The modes taskctl gives them. 'junction': a directory link Windows makes without privileges (ignored elsewhere).
    mkdirSync(join(cacheDir, 'compile'), { recursive: true, mode: 0o700 });
    symlinkSync(options.codeCache, join(cacheDir, 'compile', 'taskctl'), 'junction');
  }
  return {
    dir,
    env: {
      HOME: dir,
      TASKCTL_CONFIG_DIR: join(dir, 'config'),
      TASKCTL_CACHE_DIR: cacheDir,
      TASKCTL_STATE_DIR: join(dir, 'state'),
    },
    // Retried: a taskctl just stopped may still be writing its cache or state files (ENOTEMPTY on a busy machine).
    // A symlink is removed, not followed: a shared code cache stays for the other homes.
    cleanup: () => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }),
  };
}

/**
 * The run's shared bundle code cache (test/setup/shared-code-cache.ts): each command is compiled cold about once per run
 * instead of once per home. Undefined in a run without that global setup: homes then start cold.
 */
export function suiteCodeCache(): string | undefined {
  return inject('codeCacheDir');
}

/** Only what the CLI needs from the parent: no CI, NO_COLOR, proxies or TASKCTL_* leak into a test unless it sets them. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' };
  if (process.env.SYSTEMROOT) env.SYSTEMROOT = process.env.SYSTEMROOT;
  return env;
}

/** Spawns `command`, feeds `stdin`, collects stdout/stderr; SIGKILL and a rejection after `timeoutMs`. */
export function runProcess(
  command: string,
  args: string[],
  options: { env: Record<string, string>; stdin?: string | Buffer; timeoutMs?: number; cwd?: string; label: string },
): Promise<CliResult> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${options.label} did not finish in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');
  });
}

export function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  const env: Record<string, string> = { ...baseEnv() };
  for (const [key, value] of Object.entries(options.env ?? {})) if (value !== undefined) env[key] = value;
  return runProcess(process.execPath, [BIN, ...args], { ...options, env, label: `taskctl ${args.join(' ')}` });
}

/**
 * `taskctl args` as a child process left running, its output collected as it comes: for a test that signals it (Ctrl-C
 * part-way) and then waits for `closed`.
 */
export function startCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (text: string) => (out.stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (out.stderr += text));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, out, closed };
}

/** A loopback address no test listens on, for "nothing listens there" cases: `freePort(CLOSED_HOST)`. */
export const CLOSED_HOST = '127.0.0.3';

/**
 * A port nothing listens on at `host` a moment ago. For "nothing listens there" cases pass CLOSED_HOST: on 127.0.0.1
 * a server of a test running in parallel may take the port in between.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface E2EWorld {
  sandbox: RunningSandbox;
  home: IsolatedHome;
  /** Environment pointing the CLI at this sandbox with its key. */
  env: Record<string, string>;
  run: (args: string[], options?: RunOptions) => Promise<CliResult>;
  /** The same command through `main()` in this process (memory IO, virtual time from now), for tests whose subject
   * is not the process: no spawn, no real sleeps (a reconciliation's waits pass at once). */
  inProcess: (args: string[], options?: InProcessOptions) => Promise<CliResult>;
  admin: <T = unknown>(method: string, path: string, body?: unknown) => Promise<T>;
  /** A task POSTed straight to the sandbox with the world's key, for a test whose subject is not taskctl's create (no
   * journal, ledger or locks): the task's id and creation time as the service answered them. */
  createTask: (service: string, items: string[]) => Promise<{ id: number; created_at: string }>;
  close: () => Promise<void>;
}

interface InProcessOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  /** Real time instead of virtual time (when the sandbox must progress between the command's polls). */
  realTime?: boolean;
  /** The command's clock; share it with the sandbox (`startWorld({ clock })`) so a wait runs in virtual time. */
  clock?: Clock;
  /** Ctrl-C for a command in this process: abort it with `ctrlC()`'s reason, as the bin's first SIGINT does. */
  signal?: AbortSignal | undefined;
}

/** The reason the bin aborts a command with at the first Ctrl-C (src/main.ts), for `controller.abort(ctrlC())`. */
export const ctrlC = (signal: NodeJS.Signals = 'SIGINT') =>
  Object.assign(new Error('interrupted'), { name: 'AbortError', signal });

/** How many POST /tasks the world's sandbox has received (counted as each arrives, before any hold). */
export async function postsReceived(world: Pick<E2EWorld, 'admin'>): Promise<number> {
  const { requests } = await world.admin<{ requests: Record<string, number> }>('GET', '/__sandbox/stats');
  return requests['POST /api/v1/tasks'] ?? 0;
}

export async function startWorld(options: SandboxOptions = {}): Promise<E2EWorld> {
  const sandbox = await startSandbox({ port: 0, itemMs: 5, rateLimit: 0, ...options });
  const home = isolatedHome({ codeCache: suiteCodeCache() });
  const env = { ...home.env, TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey };
  return {
    sandbox,
    home,
    env,
    run: (args, runOptions = {}) => runCli(args, { ...runOptions, env: { ...env, ...runOptions.env } }),
    async inProcess(args, runOptions = {}) {
      const result = await runTaskctl(args, {
        env: { ...env, ...runOptions.env },
        home: home.dir,
        stdin: runOptions.stdin,
        clock: runOptions.clock ?? (runOptions.realTime ? systemClock : new FakeClock(Date.now())),
        signal: runOptions.signal,
      });
      return { ...result, signal: null };
    },
    async admin<T>(method: string, path: string, body?: unknown): Promise<T> {
      const send = () =>
        fetch(`${sandbox.origin}${path}`, {
          method,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? null : JSON.stringify(body),
        });
      // A read may meet the keep-alive race (the server closes an idle socket as fetch reuses it; seen under load after
      // a test blocked the event loop): one more try on a fresh socket. Writes are not retried.
      const response = await send().catch((error: unknown) => {
        if (method !== 'GET') throw error;
        return send();
      });
      const text = await response.text();
      return (text ? JSON.parse(text) : undefined) as T;
    },
    async createTask(service, items) {
      const { status, body } = await postToSandbox(sandbox, items, service);
      if (status !== 201) throw new Error(`POST /tasks answered ${status}: ${JSON.stringify(body)}`);
      return (body as { data: { id: number; created_at: string } }).data;
    },
    async close() {
      await sandbox.close();
      home.cleanup();
    },
  };
}

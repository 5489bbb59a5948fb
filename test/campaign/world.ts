/**
 * An in-process sandbox and `main()` runs sharing one clock, for create's exactly-once tests and campaign.
 * `SkipClock` runs in real time but compresses every sleep (`scale`× faster) and moves "now" on by the part skipped:
 * client and sandbox read the same clock, so creation times, Date headers and the client's send times agree, while
 * the faults that act in real time (a delayed answer, the request timeout) keep their real meaning.
 */
import { request } from 'undici';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import type { Clock } from '../../src/lib/time.js';
import { runTaskctl, type RunOptions, type RunResult } from '../unit/commands/harness.js';

export class SkipClock implements Clock {
  private skipped = 0;
  constructor(private readonly scale = 20) {}
  now(): number {
    return Date.now() + this.skipped;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const real = Math.max(0, ms) / this.scale;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        this.skipped += Math.max(0, ms) - real;
        resolve();
      }, real);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/**
 * Time that runs `scale`× faster than the real clock, for everyone alike: a sleep of ms takes ms/scale real, and so
 * does any real delay (a held request, a timeout) in virtual terms × scale. Unlike SkipClock, parallel sleepers do not
 * speed it up further, so a run's reconciliation horizon lasts the same real time however many runs overlap.
 */
class ScaledClock implements Clock {
  private readonly start = Date.now();
  constructor(private readonly scale = 20) {}
  now(): number {
    return this.start + (Date.now() - this.start) * this.scale;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms) / this.scale,
      );
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

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

export interface World {
  sandbox: RunningSandbox;
  clock: Clock;
  run: (argv: string[], options?: Omit<RunOptions, 'env' | 'clock'>) => Promise<RunResult>;
  env: Record<string, string>;
  tasks: () => Promise<SandboxTask[]>;
  /** POST /tasks requests the sandbox has received so far. */
  posts: () => Promise<number>;
  fault: (fault: Fault) => Promise<void>;
  clearFaults: () => Promise<void>;
  close: () => Promise<void>;
}

export async function startWorld(
  options: { scale?: number; scaled?: boolean; dialects?: string[]; clockSkewMs?: number } = {},
): Promise<World> {
  const clock = options.scaled ? new ScaledClock(options.scale) : new SkipClock(options.scale);
  const sandbox = await startSandbox({
    port: 0,
    itemMs: 0,
    rateLimit: 0,
    clock,
    balance: 10_000_000,
    dialects: options.dialects ?? [],
    clockSkewMs: options.clockSkewMs ?? 0,
  });
  const env = { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey };
  // undici's request rather than fetch: the campaign makes hundreds of these calls, and fetch costs several times more.
  const admin = async (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> => {
    const response = await request(`${sandbox.origin}/__sandbox${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const json: unknown = await response.body.json();
    if (response.statusCode >= 300)
      throw new Error(`admin ${method} ${path}: ${response.statusCode} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    sandbox,
    clock,
    env,
    run: (argv, runOptions = {}) => runTaskctl(argv, { ...runOptions, env, clock }),
    tasks: async () => ((await admin('GET', '/state')) as { tasks: SandboxTask[] }).tasks,
    posts: async () =>
      ((await admin('GET', '/stats')) as { requests: Record<string, number> }).requests['POST /api/v1/tasks'] ?? 0,
    fault: async (fault) => {
      await admin('POST', '/faults', fault);
    },
    clearFaults: async () => {
      await admin('DELETE', '/faults');
    },
    close: () => sandbox.close(),
  };
}

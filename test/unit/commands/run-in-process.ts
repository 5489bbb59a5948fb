/**
 * The in-process command seam (gh's `pkg/httpmock` + iostreams.Test): `main(argv, deps)` with in-memory IO, a fake
 * clock and undici's MockAgent, so a command's whole behaviour (flags → run function → wire → output → exit code) is
 * tested without spawning a process. Use the e2e tier (test/e2e) only for what needs a real process: signals, TTY,
 * the bin, packaging.
 *
 *   const api = mockApi();
 *   api.reply('GET', '/balance', 200, { success: true, data: { balance: 5, currency: 'coins' } });
 *   const result = await runTaskctl(['balance', '-o', 'json'], { api });
 *   expect(result.code).toBe(0);
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent, type Dispatcher } from 'undici';
import type { Clock } from '../../../src/lib/time.js';
import { FakeClock } from '../../clock.js';
import type { Deps } from '../../../src/context.js';
import type { InputStream } from '../../../src/output/io.js';
import { main } from '../../../src/main.js';
import { createMemoryIO, type MemoryOutputStream } from '../../../src/output/memory-io.js';

export const ORIGIN = 'https://api.test';
export const BASE_URL = `${ORIGIN}/api/v1`;
export const API_KEY = 'sk_test_inprocess_9876';
/** The one fake clock (test/clock.ts), for the command tests. */
export { FakeClock, T0 } from '../../clock.js';

export interface MockApi {
  agent: MockAgent;
  /**
   * Answers the next `times` requests (default 1) matching method and path (relative to /api/v1; a query may follow).
   * `body` may be a function of the request's path (relative to /api/v1, with its query) that gives the body.
   */
  reply: (method: string, path: string | RegExp, status: number, body: unknown, options?: ReplyOptions) => void;
  /** Every request seen, in order: `GET /tasks?page=1&per_page=100`. */
  readonly calls: string[];
  /** The headers of every request seen, in the order of `calls` (names in lower case). */
  readonly headers: Array<Record<string, string>>;
  /** Throws when an interceptor was registered but never used. */
  assertAllUsed: () => void;
  /** Called after every test for each MockApi it made: each reply matched at least once, unless `allowUnused()`. */
  verify: () => void;
  /** Lets this test leave replies unused (a reply registered for a request the command may or may not make). */
  allowUnused: () => void;
}

interface ReplyOptions {
  times?: number;
  headers?: Record<string, string>;
  /** Captures the parsed JSON body of each matching request. */
  bodies?: unknown[];
}

/**
 * Every MockApi made during the current test; after the test each must have used all its replies (gh's httpmock
 * `Verify`), so a test cannot pass while the command skipped a request it was expected to make. A test that registers
 * replies a command may legitimately not use says so with `api.allowUnused()`.
 */
const liveApis: MockApi[] = [];
/** Sandboxes and servers started during the current test (`sandboxRun`, `closeAfterTest`): closed after it. */
const liveSandboxes: Array<{ close: () => Promise<void> }> = [];

/**
 * Closes `server` after the current test, with the sandboxes `sandboxRun` starts: a helper module's own `afterEach`
 * would follow only the first test file of its worker to import it (`isolate: false`).
 */
export function closeAfterTest(server: { close: () => Promise<void> }): void {
  liveSandboxes.push(server);
}

/**
 * After each test (test/setup/after-each-checks.ts registers it for every test file: with `isolate: false` this module is
 * evaluated once per worker, so a hook registered here would follow only the first file): closes the sandboxes and
 * verifies the MockApis of the test that ended.
 */
export async function settleTest(): Promise<void> {
  const apis = liveApis.splice(0);
  await Promise.all(liveSandboxes.splice(0).map((sandbox) => sandbox.close()));
  for (const api of apis) api.verify();
}

/**
 * A real loopback sandbox on a fake clock shared with the command (items take `itemMs` of that clock), and `run`, which
 * runs taskctl against it without colour. Closed after the test.
 */
export async function sandboxRun(itemMs: number) {
  const { startSandbox } = await import('../../../src/sandbox/index.js');
  const clock = new FakeClock();
  const sandbox = await startSandbox({ port: 0, clock, itemMs, rateLimit: 0, seed: 1 });
  liveSandboxes.push(sandbox);
  const env = { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey, NO_COLOR: '1' };
  const run = (argv: string[], options: RunOptions = {}) =>
    runTaskctl(argv, { clock, ...options, env: { ...env, ...options.env } });
  return { run, sandbox, clock };
}

/** A MockAgent for BASE_URL with real network refused. */
export function mockApi(): MockApi {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(ORIGIN);
  const calls: string[] = [];
  const headers: Array<Record<string, string>> = [];
  let strict = true;
  /** What each reply's path matcher stands for, to name a reply never used. */
  const labels = new Map<unknown, string>();
  const api: MockApi = {
    agent,
    calls,
    headers,
    reply(method, path, status, body, options = {}) {
      const matchPath =
        typeof path === 'string'
          ? (p: string) => {
              const [pathname] = p.split('?');
              const wanted = `/api/v1${path}`;
              return path.includes('?') ? p === wanted : pathname === wanted;
            }
          : (p: string) => path.test(p.replace(/^\/api\/v1/, ''));
      labels.set(matchPath, String(path));
      pool
        .intercept({ method, path: matchPath })
        .reply((request) => {
          calls.push(`${request.method} ${request.path.replace(/^\/api\/v1/, '')}`);
          headers.push(headerRecord(request.headers));
          if (options.bodies && typeof request.body === 'string') options.bodies.push(JSON.parse(request.body));
          const answer: unknown =
            typeof body === 'function'
              ? (body as (path: string) => unknown)(request.path.replace(/^\/api\/v1/, ''))
              : body;
          return {
            statusCode: status,
            data: typeof answer === 'string' ? answer : JSON.stringify(answer),
            responseOptions: { headers: { 'content-type': 'application/json', ...options.headers } },
          };
        })
        .times(options.times ?? 1);
    },
    assertAllUsed() {
      agent.assertNoPendingInterceptors();
    },
    verify() {
      if (!strict) return;
      // gh's httpmock `Verify`: every stub matched at least once. A reply with `times: N` is an upper bound (a poll
      // answers as often as the command asks), so it counts as used after its first match.
      const pending = agent.pendingInterceptors() as Array<
        ReturnType<MockAgent['pendingInterceptors']>[number] & { timesInvoked: number }
      >;
      const unused = pending.filter((interceptor) => interceptor.timesInvoked === 0);
      if (unused.length > 0) {
        const named = unused.map((i) => `${String(i.method)} ${labels.get(i.path) ?? String(i.path)}`);
        throw new Error(`${unused.length} mocked request(s) never made: ${named.join(', ')}`);
      }
    },
    allowUnused() {
      strict = false;
    },
  };
  liveApis.push(api);
  return api;
}

/** MockAgent hands interceptors the headers as a record, an array of pairs or a flat array, depending on the caller. */
function headerRecord(raw: unknown): Record<string, string> {
  const pairs: Array<[string, unknown]> =
    raw === null || raw === undefined
      ? []
      : Array.isArray(raw)
        ? raw.every(Array.isArray)
          ? (raw as Array<[string, unknown]>)
          : Array.from({ length: raw.length / 2 }, (_, i) => [String(raw[2 * i]), raw[2 * i + 1]])
        : Object.entries(raw as Record<string, unknown>);
  return Object.fromEntries(pairs.map(([name, value]) => [name.toLowerCase(), String(value)]));
}

/** GET /services with one service, `domain_check_availability`, at `pricing` coins an item (what create prices with). */
export function replyServices(api: MockApi, pricing = 1): void {
  api.reply('GET', '/services', 200, {
    success: true,
    data: [
      {
        service: 'domain_check_availability',
        display_name: 'Domain check',
        description: 'x',
        pricing,
        currency: 'coins',
      },
    ],
    meta: { total: 1, currency: 'coins' },
  });
}

/** An empty first page of GET /tasks (create's listing before the POST), with `headers` if given. */
export function replyNoTasks(api: MockApi, headers?: Record<string, string>): void {
  api.reply(
    'GET',
    /^\/tasks\?/,
    200,
    { success: true, data: [], meta: { current_page: 1, total_pages: 1, total_count: 0, per_page: 100 } },
    headers ? { headers } : {},
  );
}

export interface RunOptions {
  /** A MockAgent-backed API (BASE_URL and API_KEY are set in the environment unless `env` overrides them). */
  api?: MockApi | undefined;
  /** Any other dispatcher (e.g. undefined to talk to a real loopback sandbox through `env`). */
  dispatcher?: Dispatcher | undefined;
  env?: Record<string, string | undefined>;
  clock?: Clock | undefined;
  signal?: AbortSignal | undefined;
  stdin?: string | readonly string[] | undefined;
  /** A stdin of the test's own (e.g. one that counts its reads); replaces `stdin` and `stdinTTY`. */
  stdinStream?: InputStream | undefined;
  stdinTTY?: boolean | undefined;
  stdoutTTY?: boolean | undefined;
  stderrTTY?: boolean | undefined;
  columns?: number | undefined;
  /** The terminal's height (stdout and stderr), for the pager and the live block. */
  rows?: number | undefined;
  /** The pager long terminal output goes through (Deps.pager); default: none, so output is printed as it is. */
  pager?: ((text: string) => Promise<boolean>) | undefined;
  /** A directory for config and caches; default: a fresh temporary one, removed afterwards. */
  home?: string | undefined;
  /** Given the run's stdout and stderr before it starts: a test can resize the terminal (`columns`) mid-run. */
  terminal?: ((streams: { stdout: MemoryOutputStream; stderr: MemoryOutputStream }) => void) | undefined;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr in the order they were written, as a terminal shows them both. */
  output?: string;
}

/** Runs `taskctl argv` in this process and returns its exit code and output. */
export async function runTaskctl(argv: string[], options: RunOptions = {}): Promise<RunResult> {
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'taskctl-inproc-'));
  const memory = createMemoryIO({
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    ...(options.stdinTTY === undefined ? {} : { stdinTTY: options.stdinTTY }),
    ...(options.stdoutTTY === undefined ? {} : { stdoutTTY: options.stdoutTTY }),
    ...(options.stderrTTY === undefined ? {} : { stderrTTY: options.stderrTTY }),
    ...(options.columns === undefined ? {} : { columns: options.columns }),
  });
  if (options.rows !== undefined) Object.assign(memory.stdout, { rows: options.rows });
  if (options.rows !== undefined) Object.assign(memory.stderr, { rows: options.rows });
  options.terminal?.({ stdout: memory.stdout, stderr: memory.stderr });
  const output: string[] = [];
  for (const stream of [memory.stdout, memory.stderr]) {
    const write = stream.write.bind(stream);
    stream.write = (chunk: string) => {
      output.push(chunk);
      return write(chunk);
    };
  }
  const dispatcher = options.api?.agent ?? options.dispatcher;
  const deps: Deps = {
    io: options.stdinStream ? { ...memory.io, stdin: options.stdinStream } : memory.io,
    env: {
      TASKCTL_CONFIG_DIR: join(home, 'config'),
      TASKCTL_CACHE_DIR: join(home, 'cache'),
      // Jobs' journals: never the developer's ~/.local/state.
      TASKCTL_STATE_DIR: join(home, 'state'),
      ...(options.api ? { TASKCTL_BASE_URL: BASE_URL, TASKCTL_API_KEY: API_KEY } : {}),
      ...options.env,
    },
    clock: options.clock ?? new FakeClock(),
    signal: options.signal ?? new AbortController().signal,
    random: () => 0.5,
    ...(dispatcher ? { dispatcher } : {}),
    ...(options.pager ? { pager: options.pager } : {}),
  };
  try {
    const code = await main(argv, deps);
    const result: RunResult = { code, stdout: memory.stdout.text(), stderr: memory.stderr.text() };
    // Not enumerable: tests that compare the whole result (`toEqual({ code, stdout, stderr })`) stay as they are.
    return Object.defineProperty(result, 'output', { value: output.join(''), enumerable: false });
  } finally {
    if (options.home === undefined) rmSync(home, { recursive: true, force: true });
  }
}

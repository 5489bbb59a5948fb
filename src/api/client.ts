/**
 * The one HTTP client: auth header, User-Agent, timeouts, proxies, resends, rate limiting, zod parsing and error
 * mapping live behind it once; commands get typed results or CliErrors. A request's path is three files: this one
 * (the endpoints), request.ts (one request: its attempts, what each answer means, its budget) and resend-policy.ts
 * (what is sent again, and how long to wait); wire.ts holds what a client's requests share. It pulls in undici: load
 * it lazily (`await import('../api/client.js')`).
 */
import type { z } from 'zod';
import { readInterrupted, UsageError } from '../errors.js';
import { endpointLabel, interruptedWriteError, otherTaskError } from './api-errors.js';
import {
  call,
  type CreateTaskObserver,
  type Deadline,
  type ResponseExchange,
  type ResponseHeaders,
} from './request.js';
import type { RateLimiter } from './rate-limit.js';
import { apiRequestPath } from './request-path.js';
import type { Method } from './resend-policy.js';
import {
  AnyBodySchema,
  BalanceResponseSchema,
  CreateTaskResponseSchema,
  ServicesResponseSchema,
  TaskListResponseSchema,
  TaskResponseSchema,
  type Balance,
  type CreateTaskRequest,
  type PageMeta,
  type Service,
  type Task,
} from './schemas.js';
import { createWire, type ApiClientOptions, type Wire } from './wire.js';

// core/submit/send.ts loads the client lazily and catches this from the same chunk.
export { AmbiguousCreateError } from './api-errors.js';
export type { CreateTaskObserver } from './request.js';
export type { ApiClientOptions } from './wire.js';

/** What `request` answers: the final response as it came, and the error the command exits with when it failed. */
interface RawResponse {
  status: number;
  headers: ResponseHeaders;
  /** The body, decoded as UTF-8 (a BOM dropped); never parsed or reshaped. */
  text: string;
  /** Set when the response is a failure by the client's rules (status, `success: false`, unreadable JSON, redirect). */
  error: Error | undefined;
}

interface RequestInit {
  /** Query pairs, appended after any query already in the path; names may repeat. */
  query?: ReadonlyArray<readonly [string, string]>;
  /** A JSON body, sent as it is with `Content-Type: application/json` (the caller validates it). */
  body?: string | undefined;
}

export interface ApiClient {
  /** GET /services. */
  listServices: () => Promise<Service[]>;
  /** GET /balance (either documented response form). */
  getBalance: () => Promise<Balance>;
  /**
   * POST /tasks. Resent only when the request provably never reached the server, or on 429. When it may have
   * reached the server and the outcome is unknown, throws `AmbiguousCreateError`: reconcile, never resend blindly.
   * `observer` hears each attempt leave (after every rate-limit wait) and each one that provably never arrived.
   */
  createTask: (req: CreateTaskRequest, observer?: CreateTaskObserver) => Promise<Task>;
  /** GET /tasks?page=&per_page= (server defaults when omitted). */
  listTasks: (q?: { page?: number; perPage?: number }) => Promise<{ tasks: Task[]; meta: PageMeta }>;
  /** GET /tasks/:id, with item results. */
  getTask: (id: number) => Promise<Task>;
  /**
   * `taskctl api`: any method and path under the base URL, with the same auth, limiter, deadline, body cap and resend
   * rules (GET resent on blips; anything else only when never sent or after a 429). The path must be relative (see
   * `apiRequestPath`; a copy of the base URL's own prefix is dropped). Resolves with the final response, a failed one
   * included (with `error`); rejects only when no response came, or with a UsageError for a refused path.
   */
  request: (method: Method, path: string, init?: RequestInit) => Promise<RawResponse>;
  /** The normalised base URL it talks to (caches of server data are kept per base URL). */
  readonly baseUrl: string;
  /** The limiter this client paces with (`auth status` shows its snapshot). */
  readonly rateLimiter: RateLimiter;
  /**
   * A wait for the rate limit its caller makes itself (the follow engine's rounds, paced by `rateLimiter.readyAt`),
   * told to `onWait` as the client's own waits are: `waiting 31s for the rate limit (6 requests/min)…`, once, when
   * longer than 2 s.
   */
  announceRateLimitWait: (waitMs: number) => void;
  /**
   * Server clock minus local clock in ms, from the responses' `Date` headers: the largest value seen, a lower bound
   * (Date has whole seconds, and the answer took time to arrive). Undefined until a response carried a Date.
   * Reconciliation compares the server's `created_at` with when the request was sent through it.
   */
  serverClockOffset: () => number | undefined;
  /** Both bounds of that offset (the upper one: Date + 1 s minus the send), each undefined until a Date was seen. */
  serverClockBounds: () => { low: number | undefined; high: number | undefined };
  /**
   * The latest `Date` header received (epoch ms of its whole second), on the server's own clock: a request sent after
   * it is processed no earlier. Undefined until a response carried a Date.
   */
  serverDate: () => number | undefined;
  /**
   * The same client (pool, limiter, trace) with another deadline (epoch ms; undefined = none), e.g. for the wait that
   * follows a create. Closing the view does nothing: the pool belongs to the client it came from.
   */
  withDeadline: (deadline: number | undefined) => ApiClient;
  /**
   * The same client with `ms` of the service's time, shared by its calls: waits for the rate limit (the limiter's, a
   * 429's) do not count, so a spent budget delays the calls instead of failing them (the snapshot before a create).
   */
  withBudget: (ms: number) => ApiClient;
  /** Closes the connection pool it created (an injected dispatcher is left open). */
  close: () => Promise<void>;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  return clientView(createWire(options), { at: options.deadline, pausesForRateLimit: false }, true);
}

/** The client's methods with one deadline; `withDeadline` and `withBudget` make more views over the same wire. */
function clientView(wire: Wire, limit: Deadline, ownsPool: boolean): ApiClient {
  const get = <T>(path: string, schema: z.ZodType<T>, query?: Record<string, number | undefined>) =>
    call(wire, { method: 'GET', path, schema, ...(query ? { query } : {}) }, limit);
  return {
    baseUrl: wire.options.baseUrl,
    rateLimiter: wire.limiter,
    announceRateLimitWait: (waitMs) => wire.notices.announce(waitMs, `for ${wire.limiter.holdWords()}`),
    listServices: async () => (await get('/services', ServicesResponseSchema)).data,
    getBalance: async () => (await get('/balance', BalanceResponseSchema)).data,
    async createTask(req, observer) {
      // Only the documented fields go on the wire.
      const body = { service: req.service, items: req.items };
      const spec = { method: 'POST' as const, path: '/tasks', body, schema: CreateTaskResponseSchema, observer };
      return (await call(wire, spec, limit)).data;
    },
    async listTasks(q = {}) {
      const response = await get('/tasks', TaskListResponseSchema, { page: q.page, per_page: q.perPage });
      return { tasks: response.data, meta: response.meta };
    },
    async getTask(id) {
      if (!Number.isSafeInteger(id) || id < 0) {
        throw new UsageError(`invalid task id "${id}"`, 'Task ids are whole numbers, as `taskctl list` shows them.');
      }
      const task = (await get(`/tasks/${id}`, TaskResponseSchema)).data;
      // A read of task N that answers another task is a service error, never task N: exit 8, both named.
      if (task.id !== id) throw otherTaskError(id, task.id);
      return task;
    },
    request: (method, path, init = {}) => rawRequest(wire, limit, method, path, init),
    withDeadline: (next) => clientView(wire, { at: next, pausesForRateLimit: false }, false),
    withBudget: (ms) => clientView(wire, { at: wire.clock.now() + ms, pausesForRateLimit: true }, false),
    serverClockOffset: () => wire.serverClock.low,
    serverClockBounds: () => ({ low: wire.serverClock.low, high: wire.serverClock.high }),
    serverDate: () => wire.serverClock.latest,
    async close() {
      if (ownsPool && wire.ownsDispatcher) await wire.dispatcher.destroy(endOfRun());
    },
  };
}

/**
 * What the pool's sockets are destroyed with when the run ends: an error without stack frames. Closing the pool
 * gracefully ends in the same destroy with an error of undici's, whose stack Node formats as the socket goes, and
 * formatting it reads the line positions of the whole CLI bundle: ~2 ms of every command's start-up
 * (docs/performance.md). Nothing is in flight then: every request of the run has been answered or given up.
 */
function endOfRun(): Error {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new Error('the run has ended');
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** `taskctl api`: any method and path; the last response as it came, with the error it means when it failed. */
async function rawRequest(
  wire: Wire,
  limit: Deadline,
  method: Method,
  path: string,
  init: RequestInit,
): Promise<RawResponse> {
  let target = apiRequestPath(path);
  const { basePath } = wire;
  // A path copied with the base URL's own prefix (`/api/v1/balance`, as --verbose shows it) means the same path.
  if (basePath !== '' && target.startsWith(`${basePath}/`)) target = target.slice(basePath.length);
  const search = new URLSearchParams(init.query?.map(([name, value]): [string, string] => [name, value])).toString();
  if (search !== '') target += `${target.includes('?') ? '&' : '?'}${search}`;
  const seen: { last?: ResponseExchange | undefined } = {};
  /** An attempt was handed to the connection and not reported as unprocessed since: it may reach the server. */
  const sent = { inFlight: false };
  const observer: CreateTaskObserver = {
    onDispatch: () => (sent.inFlight = true),
    onNotProcessed: () => (sent.inFlight = false),
  };
  const spec = { method, path: target, bodyText: init.body, schema: AnyBodySchema, raw: true, seen, observer };
  let error: Error | undefined;
  try {
    await call(wire, spec, limit);
  } catch (thrown) {
    // Ctrl-C stops a write that may have left: what it may have done is said, as for a lost answer. A GET changed
    // nothing, and is said as every read's stop is.
    if (wire.signal?.aborted)
      throw method === 'GET' ? readInterrupted() : interruptedWriteError(endpointLabel(method, target), sent.inFlight);
    // Without a response (a transport failure, a refused path, Ctrl-C) there is nothing to show: rethrow.
    if (seen.last === undefined || wire.signal?.aborted || !(thrown instanceof Error)) throw thrown;
    error = thrown;
  }
  const last = seen.last;
  if (last === undefined) throw new Error('request: an answer was accepted without a response');
  return { status: last.status, headers: last.headers, text: last.text, error };
}

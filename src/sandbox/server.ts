/** Wires the sandbox together: options, state, lifecycle, webhooks, and the node:http server with its request pipeline. */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenOn } from '../net/listen.js';
import { ADMIN_PREFIX, handleAdmin } from './admin.js';
import type { AdminContext } from './admin.js';
import { API_PREFIX, matchApiRoute } from './api.js';
import type { ApiContext } from './api.js';
import { FaultInjector } from './faults.js';
import type { Fault } from './faults.js';
import { dashboardReply, isDashboardPath } from './dashboard/routes.js';
import { errorReply, JSON_TYPE, readBody, splitUrl } from './http.js';
import type { BodyResult, Reply } from './http.js';
import type { RunningSandbox, SandboxOptions } from './types.js';
import { LifecycleScheduler } from './lifecycle.js';
import { isLoopbackAddress } from './loopback.js';
import { resolveOptions } from './options.js';
import type { ResolvedOptions } from './options.js';
import { StateStore } from './persistence.js';
import { Dialects } from './dialects.js';
import { LiveFeed } from './live-feed.js';
import { hostAllowed, originAllowed } from './same-origin.js';
import { FixedWindowLimiter } from './rate-limit.js';
import { SandboxState } from './state.js';
import { RequestStats } from './stats.js';
import { TimerSet } from './timers.js';
import { WebhookDispatcher } from './webhooks.js';

const API_PATH_PREFIX = `${API_PREFIX}/`;
const EVENTS_PATH = `${ADMIN_PREFIX}/events`;
const GATEWAY_PAGE =
  '<!DOCTYPE html>\n<html><head><title>Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>The upstream server did not respond.</p></body></html>\n';

function loadState(opts: ResolvedOptions): { state: SandboxState; store: StateStore | undefined } {
  const fresh = { balance: opts.balance, apiKey: opts.apiKey, keyRotations: 0, nextId: 1, webhookUrl: null, tasks: [] };
  const opened = opts.stateFile ? StateStore.open(opts.stateFile, fresh, opts.log) : undefined;
  // An existing state file wins over the defaults-bearing options; it is what --state is for.
  const state = new SandboxState(opened?.saved ?? fresh, opts.seed);
  if (opts.webhookUrl !== undefined) state.webhookUrl = opts.webhookUrl;
  return { state, store: opened?.store };
}

/** The key from `X-API-Key`, else from `Authorization: Bearer`. */
function presentedKey(req: IncomingMessage): string | undefined {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header;
  const auth = req.headers.authorization;
  if (!auth) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
  return match?.[1];
}

function originOf(host: string, port: number): string {
  // A wildcard listen address is reachable through loopback; show that, since clients cannot dial 0.0.0.0 everywhere.
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

export async function startSandboxServer(options: SandboxOptions): Promise<RunningSandbox> {
  const opts = resolveOptions(options);
  const { now, log } = opts;
  // An injected or skewed clock: the Date header must follow it (Node's own Date is this machine's clock).
  const clockInjected = options.clock !== undefined || (options.clockSkewMs ?? 0) !== 0;
  const { state, store } = loadState(opts);
  const timers = new TimerSet();
  /** No reply acknowledges or shows a change before the state journal has it on disk. */
  const whenSaved = async (reply: Reply): Promise<Reply> =>
    (await store?.settle()) === false
      ? errorReply(500, 'internal_error', 'The sandbox could not save its state')
      : reply;

  const dialects = new Dialects(opts.dialects);
  const live = new LiveFeed(timers);
  const webhooks = new WebhookDispatcher({
    onChange: () => live.notify('deliveries'),
    reshape: (payload) => dialects.webhook(payload),
    timeScale: opts.webhookTimeScale,
    timeoutMs: opts.webhookTimeoutMs,
    now,
    currentKey: () => state.apiKey,
    log,
    timers,
  });
  const lifecycle = new LifecycleScheduler(now, timers, (event) => {
    live.notify('tasks');
    // The URL in force at the moment of the transition receives it (none configured: the event is not sent).
    if (state.webhookUrl) webhooks.send(state.webhookUrl, event);
  });
  for (const task of state.tasks) lifecycle.track(task, { replayPast: false });

  const limiter = new FixedWindowLimiter(opts.rateLimit, now);
  const stats = new RequestStats();
  const faults = new FaultInjector();
  // The dashboard hears of every change: the journal's hook stays first (store.attach sets it, below).
  const notifyState = (): void => live.notify('state');
  const apiCtx: ApiContext = {
    state,
    now,
    seed: opts.seed,
    itemMs: opts.itemMs,
    maxItems: opts.maxItems,
    taskCreated: (task) => lifecycle.track(task, { replayPast: true }),
    dialects,
  };
  const adminCtx: AdminContext = { state, stats, faults, webhooks, now, seed: opts.seed };
  /** Set once listening (port 0 picks it); the Host check compares with it. */
  let serverPort = opts.port;

  function send(
    req: IncomingMessage,
    res: ServerResponse,
    reply: Reply,
    extra?: Record<string, string>,
    fault?: Fault,
  ): void {
    if (fault?.kind === 'reset-after') {
      // The work is done (a task may have been created and charged) but the client never learns the outcome.
      req.socket.destroy();
      return;
    }
    const headers: Record<string, string> = {
      'Content-Type': reply.contentType ?? JSON_TYPE,
      ...extra,
      ...reply.headers,
    };
    // With an injected clock the Date header follows it too: clients measure an epoch X-RateLimit-Reset against Date.
    if (clockInjected) headers.Date = new Date(now()).toUTCString();
    let body = reply.body;
    if (fault?.kind === 'truncate') {
      // A complete HTTP message whose JSON stops half way, then the connection closes.
      body = body.slice(0, Math.floor(body.length / 2));
      headers.Connection = 'close';
    } else {
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    res.writeHead(reply.status, headers);
    res.end(body);
  }

  async function handleApi(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    path: string,
    query: string,
  ): Promise<number> {
    const match = matchApiRoute(path);
    stats.count(`${method} ${match ? match.route.pattern : '(unknown route)'}`);
    const key = presentedKey(req);
    // Requests without a key are limited per client address, so even 401s carry a meaningful budget.
    const bucket = key ?? `address:${req.socket.remoteAddress ?? ''}`;
    const fault = faults.take(method, path);
    if (fault) live.notify('faults');
    if (fault?.kind === 'reset-before') {
      req.socket.destroy();
      return 0;
    }
    if (fault?.kind === 'non-json') {
      const reply = { status: fault.status ?? 502, body: GATEWAY_PAGE, contentType: 'text/html; charset=utf-8' };
      send(req, res, reply);
      return reply.status;
    }
    if (fault?.kind === 'status') {
      const status = fault.status ?? 500;
      const extra = limiter.enabled ? dialects.rateLimitHeaders(limiter.peek(bucket)) : undefined;
      const reply =
        status === 429
          ? errorReply(429, 'rate_limited', 'Rate limit exceeded (injected fault)', { 'Retry-After': '1' })
          : errorReply(status, 'internal_error', `Internal server error (injected fault, HTTP ${status})`);
      send(req, res, dialects.error(reply), extra);
      return status;
    }
    let body: Promise<BodyResult> | undefined;
    if (fault?.kind === 'delay') {
      // Like a real server, the request is received in full before the slow part, so a client that times out and
      // hangs up meanwhile does not cancel it: a delayed POST /tasks still creates the task (what reconciliation is for).
      if (method === 'POST') body = readBody(req);
      await timers.sleep(fault.delayMs ?? 0);
    }

    let extra: Record<string, string> | undefined;
    if (limiter.enabled) {
      const decision = limiter.hit(bucket);
      extra = dialects.rateLimitHeaders(decision);
      if (!decision.allowed) {
        const message = `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.retryAfter} s`;
        send(
          req,
          res,
          dialects.error(errorReply(429, 'rate_limited', message, { 'Retry-After': String(decision.retryAfter) })),
          extra,
          fault,
        );
        return 429;
      }
    }
    let reply: Reply;
    if (key !== state.apiKey) {
      reply = errorReply(401, 'unauthorized', 'Invalid or missing API key');
    } else if (!match) {
      reply = errorReply(404, 'not_found', `No such endpoint: ${method} ${path}`);
    } else {
      const handler = match.route.methods[method];
      reply = handler
        ? await handler(req, apiCtx, query, match.id, body)
        : errorReply(
            405,
            'method_not_allowed',
            `${method} is not allowed on ${match.route.pattern}; use ${match.route.allow}`,
            {
              Allow: match.route.allow,
            },
          );
    }
    reply = dialects.error(reply);
    reply = await whenSaved(reply);
    send(req, res, reply, extra, fault);
    return reply.status;
  }

  /** The admin API and the page answer only this machine, by address and by `Host`; writes only without a foreign Origin. */
  function refuse(req: IncomingMessage, method: string): Reply | undefined {
    if (!isLoopbackAddress(req.socket.remoteAddress)) {
      return errorReply(403, 'forbidden', 'The sandbox admin API only answers clients on this machine');
    }
    if (!hostAllowed(req, serverPort)) {
      return errorReply(
        403,
        'forbidden',
        `The sandbox dashboard answers only Host: 127.0.0.1:${serverPort} or localhost:${serverPort}`,
      );
    }
    if (method !== 'GET' && method !== 'HEAD' && !originAllowed(req, serverPort)) {
      return errorReply(403, 'forbidden', 'The sandbox admin API refuses writes from another site (Origin)');
    }
    return undefined;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { path, query } = splitUrl(req.url);
    const method = req.method ?? 'GET';
    if (path.startsWith(API_PATH_PREFIX) || path === API_PREFIX) {
      if ((await handleApi(req, res, method, path, query)) === 429) stats.count429();
    } else if (path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`) || isDashboardPath(path)) {
      const refused = refuse(req, method);
      if (refused) send(req, res, refused);
      else if (path === EVENTS_PATH && method === 'GET') live.open(res);
      else if (isDashboardPath(path))
        send(req, res, dashboardReply(method, path) ?? errorReply(404, 'not_found', path));
      else {
        const reply = await whenSaved(await handleAdmin(req, path, query, adminCtx));
        if (reply.status < 300 && method !== 'GET')
          live.notify(path.startsWith(`${ADMIN_PREFIX}/faults`) ? 'faults' : 'state');
        send(req, res, reply);
      }
    } else {
      send(req, res, errorReply(404, 'not_found', `No such endpoint: ${path} (the API lives under ${API_PREFIX})`));
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`sandbox: internal error on ${req.method} ${req.url}: ${(error as Error).stack ?? String(error)}`);
      if (res.headersSent) return void req.socket.destroy();
      const reply = errorReply(500, 'internal_error', 'Internal server error');
      res.writeHead(reply.status, {
        'Content-Type': JSON_TYPE,
        'Content-Length': String(Buffer.byteLength(reply.body)),
      });
      res.end(reply.body);
    });
  });
  try {
    await store?.attach(state);
    await listenOn(server, opts.port, opts.host);
  } catch (error) {
    store?.abandon();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  serverPort = port;
  const previous = state.onChange;
  state.onChange = () => {
    previous();
    notifyState();
  };
  const origin = originOf(opts.host, port);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      timers.close();
      webhooks.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await store?.close();
    })();
    return closing;
  };
  return { url: `${origin}${API_PREFIX}`, origin, dashboard: `${origin}/`, apiKey: state.apiKey, close };
}

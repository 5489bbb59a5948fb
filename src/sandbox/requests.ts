/**
 * The sandbox's request pipeline: the API (injected faults, the rate limit, the key, the route) under /api/v1, the
 * admin API, its live feed, the dashboard page and the contract (`/openapi.json`) for this machine only, and 404 for
 * anything else.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ADMIN_PREFIX, handleAdmin } from './admin.js';
import { API_PREFIX, matchApiRoute } from './api-routes.js';
import type { ApiRoute } from './api-routes.js';
import type { Fault } from './faults.js';
import { formatDuration } from '../lib/duration.js';
import { dashboardReply, isDashboardPath } from './dashboard/routes.js';
import { errorReply, JSON_TYPE, jsonReply, readBody, splitUrl } from './http.js';
import type { BodyResult, Reply } from './http.js';
import { isLoopbackAddress } from './loopback.js';
import { OPENAPI_PATH, openApiReply } from './openapi.js';
import { whenSaved, type SandboxParts } from './parts.js';
import { hostAllowed, originAllowed } from './same-origin.js';

const API_PATH_PREFIX = `${API_PREFIX}/`;
const EVENTS_PATH = `${ADMIN_PREFIX}/events`;
const GATEWAY_PAGE =
  '<!DOCTYPE html>\n<html><head><title>Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>The upstream server did not respond.</p></body></html>\n';

/** One API request: what it asks and how it is answered. */
interface ApiRequest {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  path: string;
  query: string;
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

function send(
  parts: SandboxParts,
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
  if (parts.clockInjected) headers.Date = new Date(parts.opts.now()).toUTCString();
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

/** A fault that answers by itself (reset, a non-JSON page, an error status): the status sent, else undefined. */
function answerFault(parts: SandboxParts, request: ApiRequest, fault: Fault, bucket: string): number | undefined {
  const { req, res } = request;
  const { limiter, dialects } = parts;
  if (fault.kind === 'reset-before') {
    req.socket.destroy();
    return 0;
  }
  if (fault.kind === 'non-json') {
    const reply = { status: fault.status ?? 502, body: GATEWAY_PAGE, contentType: 'text/html; charset=utf-8' };
    send(parts, req, res, reply);
    return reply.status;
  }
  if (fault.kind === 'status') {
    const status = fault.status ?? 500;
    const extra = limiter.enabled ? dialects.rateLimitHeaders(limiter.peek(bucket)) : undefined;
    const reply =
      status === 429
        ? errorReply(429, 'rate_limited', 'Rate limit exceeded (injected fault)', { 'Retry-After': '1' })
        : errorReply(status, 'internal_error', `Internal server error (injected fault, HTTP ${status})`);
    send(parts, req, res, dialects.error(reply), extra);
    return status;
  }
  return undefined;
}

/** The route's answer for a request past the rate limit: 401 without the key, 404 or 405 off the routes. */
async function routeReply(
  parts: SandboxParts,
  request: ApiRequest,
  match: { route: ApiRoute; id: string } | undefined,
  key: string | undefined,
  body: Promise<BodyResult> | undefined,
): Promise<Reply> {
  const { req, method, path, query } = request;
  if (key !== parts.state.apiKey) return errorReply(401, 'unauthorized', 'Invalid or missing API key');
  if (!match) return errorReply(404, 'not_found', `No such endpoint: ${method} ${path}`);
  const handler = match.route.methods[method];
  if (handler) return handler(req, parts.apiCtx, query, match.id, body);
  return errorReply(
    405,
    'method_not_allowed',
    `${method} is not allowed on ${match.route.pattern}; use ${match.route.allow}`,
    { Allow: match.route.allow },
  );
}

/** Answers one API request; returns the status sent (0 for a reset connection). */
async function handleApi(parts: SandboxParts, request: ApiRequest): Promise<number> {
  const { req, res, method, path } = request;
  const { stats, faults, live, timers, limiter, dialects } = parts;
  const match = matchApiRoute(path);
  stats.count(`${method} ${match ? match.route.pattern : '(unknown route)'}`);
  const key = presentedKey(req);
  // Requests without a key are limited per client address, so even 401s carry a meaningful budget.
  const bucket = key ?? `address:${req.socket.remoteAddress ?? ''}`;
  const fault = faults.take(method, path);
  if (fault) live.notify('faults');
  const answered = fault ? answerFault(parts, request, fault, bucket) : undefined;
  if (answered !== undefined) return answered;
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
      const per = decision.windowMs === 60_000 ? 'minute' : formatDuration(decision.windowMs);
      const message = `Rate limit of ${decision.limit} requests per ${per} exceeded; try again in ${formatDuration(decision.retryAfter * 1000)}`;
      const reply = errorReply(429, 'rate_limited', message, { 'Retry-After': String(decision.retryAfter) });
      send(parts, req, res, dialects.error(reply), extra, fault);
      return 429;
    }
  }
  const reply = await whenSaved(parts, dialects.error(await routeReply(parts, request, match, key, body)));
  send(parts, req, res, reply, extra, fault);
  return reply.status;
}

/** The admin API and the page answer only this machine, by address and by `Host`; writes only without a foreign Origin. */
function refuse(parts: SandboxParts, req: IncomingMessage, method: string): Reply | undefined {
  const { serverPort } = parts;
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

/** The admin API, its live feed, the dashboard page and the contract (`/openapi.json`). */
async function handleLocal(parts: SandboxParts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { path, query } = splitUrl(req.url);
  const method = req.method ?? 'GET';
  const refused = refuse(parts, req, method);
  if (refused) send(parts, req, res, refused);
  else if (path === EVENTS_PATH && method === 'GET') parts.live.open(res);
  else if (path === OPENAPI_PATH) send(parts, req, res, openApiReply(method, req.headers.host ?? ''));
  else if (isDashboardPath(path))
    send(parts, req, res, dashboardReply(method, path) ?? errorReply(404, 'not_found', path));
  else {
    const reply = await whenSaved(parts, await handleAdmin(req, path, query, parts.adminCtx));
    if (reply.status < 300 && method !== 'GET')
      parts.live.notify(path.startsWith(`${ADMIN_PREFIX}/faults`) ? 'faults' : 'state');
    send(parts, req, res, reply);
  }
}

/** The paths answered for this machine only, without a key or the rate limit. */
function isLocalPath(path: string): boolean {
  return path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`) || isDashboardPath(path) || path === OPENAPI_PATH;
}

export async function handleRequest(parts: SandboxParts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { path, query } = splitUrl(req.url);
  const method = req.method ?? 'GET';
  if (path.startsWith(API_PATH_PREFIX) || path === API_PREFIX) {
    if ((await handleApi(parts, { req, res, method, path, query })) === 429) parts.stats.count429();
  } else if (isLocalPath(path)) {
    await handleLocal(parts, req, res);
  } else {
    // Outside the API nothing is the API's: the 404 is not its error body, as a host's own page would not be, so a
    // client with a base URL of the wrong path is told to check it rather than that its task is gone.
    send(parts, req, res, jsonReply(404, { message: `No such endpoint: ${path} (the API lives under ${API_PREFIX})` }));
  }
}

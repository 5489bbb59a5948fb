/** The numbers of the wire contract (DESIGN.md section 5, README "How taskctl talks to the service"), in one place. */

/** The version prefix every endpoint lives under (api-spec.md section 9). */
export const API_PREFIX = '/api/v1';

/** The methods `taskctl api` sends; only GET is ever resent after it may have reached the server. */
export const REQUEST_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Attempts per request, the first one included. */
export const MAX_ATTEMPTS = 4;
/** TCP + TLS connection setup (capped by `--request-timeout`). */
export const CONNECT_TIMEOUT_MS = 10_000;
/** The whole GET exchange: connect, headers and the complete body. */
export const GET_TIMEOUT_MS = 30_000;
/** The same for POST /tasks, which stores every item before answering. */
export const POST_TIMEOUT_MS = 60_000;

/**
 * The largest response body read: a 100,000-item task with its item data is about 30 MiB, so 64 MiB leaves room while
 * keeping a hostile or broken server from filling memory. Larger bodies are refused unread (exit 8).
 */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** Deeper JSON than this is a malformed response: no API object nests beyond a handful of levels. */
export const MAX_JSON_DEPTH = 256;
/** A wait (rate limit, Retry-After) longer than this is announced before it starts: silence past 2 s looks like a hang. */
export const WAIT_NOTICE_MS = 2_000;

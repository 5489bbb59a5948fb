/** The numbers of the wire contract, in one place (docs/behaviour.md describes them for users). */

/** The version prefix every endpoint of the API lives under. */
export const API_PREFIX = '/api/v1';

/** The methods `taskctl api` sends; only GET is ever resent after it may have reached the server. */
export const REQUEST_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * The API's documented request rate per key (100 requests per minute), the only request rate written down
 * in taskctl: the budget assumed when a server states none (after a 429, and for long-running polling), and the
 * sandbox's default. A server's `X-RateLimit-*` headers override it.
 */
export const DOCUMENTED_RATE_LIMIT = 100;
/** The window that rate is counted over (a minute, docs/openapi.json: X-RateLimit-Limit); also the window assumed when one rolls over locally. */
export const DOCUMENTED_RATE_WINDOW_MS = 60_000;

/** Attempts per request, the first one included. */
export const MAX_ATTEMPTS = 4;
/** TCP + TLS connection setup (capped by `--request-timeout`). */
export const CONNECT_TIMEOUT_MS = 10_000;
/**
 * The whole GET exchange of one attempt: connect, headers and the complete body (capped by the request's budget); a
 * budget above REQUEST_BUDGET_MS lengthens it to that budget less the 5 s the default leaves for a resend.
 */
export const GET_TIMEOUT_MS = 30_000;
/**
 * One logical request (every method but POST /tasks-like writes) with all its attempts and back-off, announced rate-limit
 * waits excluded: a dripping server ends a `balance` in 35 s, not 4 × 30 s. `--request-timeout` sets it.
 */
export const REQUEST_BUDGET_MS = 35_000;
/** One attempt of POST /tasks, which stores every item before answering (a write is resent only when it provably never left). */
export const POST_TIMEOUT_MS = 60_000;

/**
 * The largest response body read: a 100,000-item task with its item data is about 30 MiB, so 64 MiB leaves room while
 * keeping a hostile or broken server from filling memory. Larger bodies are refused unread (exit 8).
 */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/**
 * The largest body `taskctl api` reads to send (`--input`, `-F key=@FILE`): what the sandbox accepts (docs/sandbox.md),
 * and what keeps a body checked as JSON and sent under the 300 MB bound (one at the cap: about 210 MB; at 64 MiB,
 * 500 MB). More is refused before parsing, read no further than one byte past it (/dev/zero).
 */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
/** Deeper JSON than this is a malformed response: no API object nests beyond a handful of levels. */
export const MAX_JSON_DEPTH = 256;
/**
 * More objects and arrays than this in one answer is a malformed response. Each costs V8 about 100 bytes once parsed,
 * and `{}` is 3 bytes of text: 64 MiB of them would be 2 GB in memory and minutes of work. The most an answer within
 * MAX_RESPONSE_BYTES holds of real items (1,000,000 of 60 bytes, each with its result object) is 2,000,000.
 */
export const MAX_JSON_CONTAINERS = 2_500_000;
/**
 * A request with no answer this long is said to be waited for (spinner text, or one stderr line), as the live block of
 * a wait says a round with no answer: a read of a service that stopped answering is otherwise 35 s of silence.
 */
export const NO_ANSWER_NOTICE_MS = 5_000;
/** A wait (rate limit, Retry-After) longer than this is announced before it starts: silence past 2 s looks like a hang. */
export const WAIT_NOTICE_MS = 2_000;

/**
 * The User-Agent of the service's webhook deliveries (docs/openapi.json: WebhookUserAgent, `<service>-Webhook/<version>`):
 * what the sandbox sends and `webhook simulate` and forwarding send as the service would.
 */
export const WEBHOOK_USER_AGENT = 'TaskService-Webhook/1.0';

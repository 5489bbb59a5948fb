/**
 * Maps API failures to the CliError classes of src/errors.ts: by `error.code` first, HTTP status second
 * (docs/openapi.json leaves most statuses open: `4XX`, `5XX`). Messages name the endpoint and carry the server's words.
 */
import {
  AuthError,
  BalanceError,
  CliError,
  CreateUnknownError,
  InputError,
  InterruptedError,
  interruptedBeforeSend,
  NotFoundError,
  MalformedResponseError,
  RateLimitError,
  RefusedError,
  UnavailableError,
} from '../errors.js';
import { API_PREFIX, MAX_JSON_CONTAINERS, MAX_JSON_DEPTH } from './constants.js';
import { neutralise } from '../lib/sanitize.js';
import { thousands } from '../lib/thousands.js';
import type { ApiErrorBody } from './schemas.js';

export const AUTH_HINT = 'Run `taskctl auth login`, or set TASKCTL_API_KEY.';
const FORBIDDEN_HINT =
  'The key is valid but not allowed to do this; check it in the dashboard, or run `taskctl auth login` with another key.';
const BALANCE_HINT = 'Check `taskctl balance`, top up in the dashboard, or submit fewer items.';
const RATE_HINT = 'Wait for the rate-limit window to reset (`taskctl auth status` shows it) and try again.';
const INPUT_HINT = 'Nothing was created; fix the request and try again.';
const UNAVAILABLE_HINT = 'Try again later; `--verbose` shows the HTTP exchange.';
const MAX_DEPTH_TEXT = String(MAX_JSON_DEPTH);
const MAX_CONTAINERS_TEXT = thousands(MAX_JSON_CONTAINERS);
const REFUSED_HINT = 'taskctl does not know this error code, so it did not try again: check the message.';
const BASE_URL_HINT = `Check that --base-url points at the task service (it should end in ${API_PREFIX})`;
/** The advice for an answer that is not the API's: a body not JSON or nested too deep, headers HTTP cannot read. */
export const MALFORMED_ANSWER_HINT = `${BASE_URL_HINT}, and any proxy in between.`;

type ErrorClass = 'auth' | 'forbidden' | 'notFound' | 'input' | 'balance' | 'rateLimited' | 'refused' | 'unavailable';

/** Codes docs/openapi.json lists (#/components/schemas/ErrorCode; plus `rate_limited`), in the order they are checked. */
const BY_CODE: Readonly<Record<string, ErrorClass>> = {
  unauthorized: 'auth',
  forbidden: 'forbidden',
  not_found: 'notFound',
  validation_error: 'input',
  insufficient_balance: 'balance',
  rate_limited: 'rateLimited',
  internal_error: 'unavailable',
};

function classifyStatus(status: number): ErrorClass {
  if (status === 401) return 'auth';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'notFound';
  if (status === 400 || status === 413 || status === 422) return 'input';
  if (status === 402) return 'balance';
  if (status === 429) return 'rateLimited';
  // Any other 4xx (409, 410, ...) is a refusal the client cannot interpret; 408 is a timeout, resent like one.
  if (status >= 400 && status < 500 && status !== 408) return 'refused';
  return 'unavailable';
}

/**
 * The class of a known error code. Own properties only: the code comes from the server, and `toString` or
 * `constructor` must not find Object.prototype's functions (that made the error `undefined`, an exit-1 crash).
 */
function classOfCode(code: string | undefined): ErrorClass | undefined {
  return code !== undefined && Object.hasOwn(BY_CODE, code) ? BY_CODE[code] : undefined;
}

/** Which class a failure belongs to: the error code when known, else the status. */
export function classifyApiError(status: number, code: string | undefined): ErrorClass {
  return classOfCode(code) ?? classifyStatus(status);
}

/**
 * True when the failure is a server-side fault worth resending for a GET (5xx or `internal_error`), and never a
 * definite answer for a write: also a 2xx that says `success: false` with no code that refuses (none, or one taskctl
 * does not know), which may have been carried out (a create may have landed).
 */
export function isServerFault(status: number, code: string | undefined): boolean {
  return code === 'internal_error' || (classOfCode(code) === undefined ? status >= 500 || status < 300 : false);
}

/** `GET /tasks/42`: how traces name an endpoint (path relative to the base URL, no query). */
export function endpointLabel(method: string, path: string): string {
  const bare = path.split('?')[0] ?? path;
  return `${method.toUpperCase()} ${bare}`;
}

/** `reading task 42`: how messages name a request, in words (the method and path stay in `--verbose`). */
export function requestLabel(endpoint: string): string {
  if (endpoint === 'GET /services') return 'listing services';
  if (endpoint === 'GET /balance') return 'reading the balance';
  if (endpoint === 'GET /tasks') return 'listing tasks';
  if (endpoint === 'POST /tasks') return 'creating the task';
  const task = /^GET \/tasks\/(\d+)$/.exec(endpoint);
  return task ? `reading task ${task[1] ?? ''}` : endpoint;
}

const DEFAULT_DETAIL: Readonly<Record<ErrorClass, string>> = {
  auth: 'the API key was rejected',
  forbidden: 'the API key is not allowed to do this',
  notFound: 'not found',
  input: 'the server rejected the request as invalid',
  balance: 'insufficient balance',
  rateLimited: 'rate limited',
  refused: 'the service refused the request',
  unavailable: 'the service failed',
};

/**
 * Server words that only restate what the status says (`Too many requests` beside `rate limited (HTTP 429)`,
 * `Internal server error` beside `the service failed (HTTP 500)`).
 */
const SAYS_NOTHING_MORE: Readonly<Partial<Record<ErrorClass, string>>> = {
  rateLimited: 'too many requests|rate[ _-]?limit(?:ed| exceeded| reached)?',
  unavailable:
    'internal (?:server )?error|server error|service (?:temporarily )?unavailable|bad gateway|gateway time-?out',
};

/**
 * What a server's words add to the status: none when they only restate it; of `Internal server error (injected
 * fault)`, what the parenthesis says; without the status they name once more (`injected fault, HTTP 503` is
 * `injected fault` beside the `HTTP 503` already said).
 */
function wordsBeyond(kind: ErrorClass, status: number, serverText: string): string | undefined {
  const phrase = SAYS_NOTHING_MORE[kind];
  if (phrase === undefined) return serverText;
  const text = withoutStatus(serverText.replace(/[.!\s]+$/, ''), status);
  if (text === '' || new RegExp(`^(?:${phrase})$`, 'i').test(text)) return undefined;
  return new RegExp(`^(?:${phrase})\\s*\\((.+)\\)$`, 'i').exec(text)?.[1] ?? text;
}

/** `text` without a mention of `HTTP <status>` and the comma, colon or dash that joins it to the rest. */
function withoutStatus(text: string, status: number): string {
  const mention = new RegExp(`\\s*[,;:\u2013\u2014-]?\\s*\\bHTTP[ /]?${status}\\b\\s*[,;:\u2013\u2014-]?\\s*`, 'gi');
  const joined = text.replace(mention, (found: string, offset: number) => {
    const before = text[offset - 1];
    const after = text[offset + found.length];
    return before === undefined || before === '(' || after === undefined || after === ')' ? '' : ' ';
  });
  return joined.replace(/\s*\(\)/g, '').trim();
}

/**
 * The CliError for an error response. `body` is the parsed error body, if any; `detail` overrides the message text
 * (e.g. for a non-JSON body); `suffix` is appended (e.g. ` after 4 attempts`), then `tail` (`; try again in 30s`).
 * A 429 or a 5xx, the failures resent until the attempts are spent, says what happened first, with its status
 * (`rate limited (HTTP 429)`, `the service failed (HTTP 503, internal_error: upstream down)`), the server's words in
 * that parenthesis only when they say more.
 */
export function apiError(
  endpoint: string,
  status: number,
  body: ApiErrorBody | undefined,
  options: { detail?: string; suffix?: string; tail?: string; authHint?: string | undefined } = {},
): CliError {
  const kind = classifyApiError(status, body?.code);
  const task = /^GET \/tasks\/(\d+)$/.exec(endpoint);
  // A task read's 404 that is not the service's "no such task" is no news about the task (exit 5 would tell every
  // caller the task is gone): it is an answer from somewhere else, said as one.
  if (kind === 'notFound' && task && !isApiNotFound(body)) return notTheApisNotFound(endpoint, status, body, options);
  // One line: a newline in the server's words must not start a line of its own (a forged "error:", a `::` command).
  const serverText = body?.message.trim() ? neutralise(body.message.trim()) : undefined;
  const statusText = status > 0 ? ` (HTTP ${status}${body?.code ? `, ${body.code}` : ''})` : '';
  let detail = options.detail ?? serverText ?? `${DEFAULT_DETAIL[kind]}${statusText}`;
  // The refusal's code is the one thing a script or a person can look up: always show it with the server's words.
  if (kind === 'refused' && options.detail === undefined) {
    detail = `${DEFAULT_DETAIL.refused}${statusText}${serverText ? `: ${serverText}` : ''}`;
  }
  if ((kind === 'rateLimited' || kind === 'unavailable') && options.detail === undefined && status > 0) {
    // `rate_limited` beside "rate limited" says nothing; any other code (`internal_error`) is named.
    const code =
      body?.code && !(kind === 'rateLimited' && body.code.toLowerCase() === 'rate_limited')
        ? `, ${neutralise(body.code)}`
        : '';
    const beyond = serverText === undefined ? undefined : wordsBeyond(kind, status, serverText);
    const words = beyond === undefined ? '' : `: ${beyond}`;
    detail = `${DEFAULT_DETAIL[kind]} (HTTP ${status}${code}${words})`;
  }
  // "task 42 was not found"; the server's words follow only when they say more than that.
  const extra = serverText !== undefined && !/not found/i.test(serverText) ? ` (${serverText})` : '';
  const message =
    kind === 'notFound' && task
      ? `task ${task[1] ?? ''} was not found${extra}${options.suffix ?? ''}`
      : `${requestLabel(endpoint)}: ${detail}${options.suffix ?? ''}${options.tail ?? ''}`;
  switch (kind) {
    case 'auth':
      return new AuthError(message, options.authHint ?? AUTH_HINT);
    case 'forbidden':
      return new AuthError(message, FORBIDDEN_HINT);
    case 'notFound':
      return new NotFoundError(message, notFoundHint(endpoint, isApiNotFound(body)));
    case 'input':
      return new InputError(message, endpoint.startsWith('POST ') ? INPUT_HINT : undefined);
    case 'balance':
      return new BalanceError(message, BALANCE_HINT);
    case 'rateLimited':
      return new RateLimitError(message, RATE_HINT);
    case 'refused':
      return new RefusedError(message, REFUSED_HINT);
    case 'unavailable':
      return new UnavailableError(message, UNAVAILABLE_HINT);
  }
}

/**
 * Whether a "not found" is the service's own: its error body (docs/openapi.json #/components/schemas/ErrorResponse,
 * either form) with the code `not_found`, whatever the HTTP status. A 404 with anything else (a proxy's HTML page, JSON
 * of another shape, an empty body, another code) is not the API's answer: a base URL with the wrong path, or something
 * in between. The one rule for every endpoint's 404.
 */
function isApiNotFound(body: ApiErrorBody | undefined): boolean {
  return body?.code === 'not_found';
}

/** A task read answered 404 by something other than the API (exit 8, not resent): the base URL or a proxy, not the id. */
function notTheApisNotFound(
  endpoint: string,
  status: number,
  body: ApiErrorBody | undefined,
  options: { detail?: string; suffix?: string },
): CliError {
  const serverText = body?.message.trim() ? `: ${neutralise(body.message.trim())}` : '';
  const detail =
    options.detail ??
    (body === undefined
      ? `the server answered HTTP ${status} with a body that is not the API's error form`
      : `the server answered HTTP ${status} (${neutralise(body.code)}${serverText})`);
  return new MalformedResponseError(
    `${requestLabel(endpoint)}: ${detail}${options.suffix ?? ''}`,
    MALFORMED_ANSWER_HINT,
  );
}

/** `fromApi`: the 404 came in the API's own error shape, so the base URL is right and the path is not. */
function notFoundHint(endpoint: string, fromApi: boolean): string {
  if (endpoint.startsWith('POST /tasks')) return 'Run `taskctl services` to see the valid service names.';
  if (endpoint.startsWith('GET /tasks/')) return 'Check the id with `taskctl list`.';
  if (fromApi) return 'The service has no such path: check it (paths are relative to the base URL, e.g. /balance).';
  return `Check --base-url: it should end in ${API_PREFIX}.`;
}

/** Minimal view of a zod issue (zod 4), enough to name the field that did not fit. */
interface IssueLike {
  code?: string;
  path: readonly PropertyKey[];
  message: string;
  errors?: ReadonlyArray<readonly IssueLike[]>;
}

/** `data[0].id`; the empty path is `(body)`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(body)' : out;
}

/**
 * The most telling issue: unions are opened up and the branch with the fewest issues wins (for the balance union,
 * `{data:{balance:"x"}}` reports `data.balance`, not the top-level variant's complaints).
 */
export function describeIssue(issues: readonly IssueLike[], prefix: readonly PropertyKey[] = []): string {
  const issue = issues[0];
  if (issue === undefined) return '(body): does not match the expected shape';
  const path = [...prefix, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors && issue.errors.length > 0) {
    const branches = issue.errors.filter((branch) => branch.length > 0);
    const best = [...branches].sort((a, b) => a.length - b.length)[0];
    if (best) return describeIssue(best, path);
  }
  const text = issue.message.replace(/^Invalid input:\s*/, '');
  return `${formatIssuePath(path)}: ${text}`;
}

/** A 2xx body that fits no documented shape (not resent: the same server would send it again). */
export function malformedResponseError(endpoint: string, issues: readonly IssueLike[]): UnavailableError {
  return new MalformedResponseError(
    `${requestLabel(endpoint)}: unexpected response from the server (${describeIssue(issues)})`,
    `${BASE_URL_HINT}; \`--verbose\` shows the exchange.`,
  );
}

/** GET /tasks/N answered with task M: the server (or a cache or proxy in between) mixed tasks up. Never task N. */
export function otherTaskError(asked: number, answered: number): UnavailableError {
  return new MalformedResponseError(
    `GET /tasks/${asked}: the server answered with task ${answered} instead of task ${asked}`,
    `${BASE_URL_HINT}, and any proxy or cache in between; \`--verbose\` shows the exchange.`,
  );
}

/** Why a body could not be read as JSON: cut off, nested too deep, too many objects, empty, or something else (HTML...). */
export type UnreadableReason = 'truncated' | 'too deep' | 'too large' | 'empty' | 'not JSON';

/** What an answer's headers say of its body, as sent: its Content-Type and Content-Encoding. */
export interface BodyHeaders {
  contentType?: string | undefined;
  contentEncoding?: string | undefined;
}

/** A header's value in a message: server text, so inert and one line (lib/sanitize.ts), and cut short. */
function headerWords(value: string): string {
  return neutralise(value.length > 60 ? `${value.slice(0, 60)}…` : value);
}

/**
 * The message for a body that is not usable JSON, in plain words. A body in a Content-Encoding (gzip, br, …) is one
 * taskctl did not ask for (it sends no Accept-Encoding) and does not decode: said so, with the encoding, since its bytes
 * would otherwise read as "not JSON" of a content type that may well say JSON (docs/behaviour.md#error-mapping).
 */
export function nonJsonDetail(status: number, body: BodyHeaders, why: UnreadableReason): string {
  if (why === 'truncated') return `the response was cut off (truncated JSON, HTTP ${status})`;
  if (why === 'too deep') return `the response is nested deeper than ${MAX_DEPTH_TEXT} levels (HTTP ${status})`;
  if (why === 'too large')
    return `the response holds more than ${MAX_CONTAINERS_TEXT} objects and arrays, more than any answer of the API (HTTP ${status})`;
  if (why === 'empty') return `the server answered HTTP ${status} with an empty body`;
  const encoding = body.contentEncoding?.trim();
  if (encoding && encoding.toLowerCase() !== 'identity')
    return `the server answered HTTP ${status} with an encoded body taskctl did not ask for and does not decode (Content-Encoding: ${headerWords(encoding)})`;
  const type = body.contentType?.split(';')[0]?.trim() || 'no content type';
  return `the server answered HTTP ${status} with a body that is not JSON (${headerWords(type)})`;
}

/** A 2xx body that is not usable JSON. */
export function nonJsonResponseError(
  endpoint: string,
  status: number,
  body: BodyHeaders,
  why: UnreadableReason,
): UnavailableError {
  return new MalformedResponseError(
    `${requestLabel(endpoint)}: ${nonJsonDetail(status, body, why)}`,
    MALFORMED_ANSWER_HINT,
  );
}

/**
 * An answer that stopped early (a body shorter than its Content-Length, or JSON that ends mid-document at the end of
 * the stream), in words: `the answer was cut off after 28 bytes` and its particulars (`HTTP 200, 200 announced`).
 */
export function cutOffWords(status: number, bytes: number, announced?: number): { words: string; particulars: string } {
  const of = announced !== undefined && Number.isFinite(announced) ? `, ${announced} announced` : '';
  return {
    words: `the answer was cut off after ${bytes} byte${bytes === 1 ? '' : 's'}`,
    particulars: `HTTP ${status}${of}`,
  };
}

/**
 * A read whose every answer was cut off. The answers were the API's as far as they went, so --base-url is not blamed:
 * the connection, or a proxy in between, dropped the rest.
 */
export function cutOffError(
  endpoint: string,
  words: { words: string; particulars: string },
  suffix: string,
): UnavailableError {
  return new UnavailableError(
    `${requestLabel(endpoint)}: ${words.words} (${words.particulars})${suffix}`,
    'The connection or a proxy in between dropped the rest of the answer; try again later (`--verbose` shows the exchange).',
  );
}

/** A 3xx that redirects nowhere (300, 304, 305, 306): an answer to no request taskctl sends (exit 8). */
export function outOfTurnError(endpoint: string, status: number): UnavailableError {
  return new MalformedResponseError(
    `${requestLabel(endpoint)}: the server answered HTTP ${status}, an answer no request of taskctl asks for`,
    `${BASE_URL_HINT}, and any proxy or cache in between; \`--verbose\` shows the exchange.`,
  );
}

/** A redirect is never followed: the API key must not travel to wherever it points. */
export function redirectError(endpoint: string, status: number, location: string | undefined): UnavailableError {
  const target = location ? ` to ${location}` : '';
  return new UnavailableError(
    `${requestLabel(endpoint)}: the server answered HTTP ${status}, a redirect${target}; taskctl does not follow redirects with your API key`,
    'If the service has moved, set --base-url (or `taskctl config set base-url`) to the new address.',
  );
}

/**
 * What a `taskctl api` request other than GET may have done when its outcome is unknown, what it did not do when it
 * never left, and how to find out: one wording for a lost answer and for Ctrl-C. A POST /tasks names the task it may
 * have created, as `create` does.
 */
function writeWords(endpoint: string) {
  return /^POST \/tasks\/?$/.test(endpoint)
    ? { create: true, maybe: 'may have created a task', nothing: 'nothing was created', check: 'with `taskctl list`' }
    : { create: false, maybe: 'may have been carried out', nothing: 'nothing was carried out', check: 'its effect' };
}

/**
 * A `taskctl api` request other than GET failed after it may have reached the server: it is not resent (exit 8), and
 * the message says it may have taken effect. (A create through `taskctl create` is reconciled instead.) A POST /tasks
 * is exit 9, like a create's: after a create that may have landed, 8 ("try again") could pay twice.
 */
export function outcomeUnknownError(message: string, cause: unknown, endpoint = ''): CliError {
  const words = writeWords(endpoint);
  const text = `${message}; the request ${words.maybe}`;
  const hint = `It was not sent again: check ${words.check} before repeating it.`;
  const error = words.create ? new CreateUnknownError(text, hint) : new UnavailableError(text, hint);
  error.cause = cause;
  return error;
}

/**
 * Ctrl-C (or SIGTERM) stopped a `taskctl api` request other than GET. Once it had left it may have been carried out
 * (`inFlight`), and the message says so as a lost answer's does (the exit code stays the signal's); before, nothing was.
 */
export function interruptedWriteError(endpoint: string, inFlight: boolean): InterruptedError {
  const words = writeWords(endpoint);
  if (!inFlight) return interruptedBeforeSend(words.nothing, 'Re-run the same command to send it.');
  return new InterruptedError(`interrupted: the request ${words.maybe}`, `Check ${words.check} before repeating it.`);
}

/**
 * POST /tasks failed after the request may have reached the server: a task may exist. Internal: the create command
 * catches it and reconciles; if it escapes, it is an exit-8 error telling the user to check.
 */
export class AmbiguousCreateError extends UnavailableError {
  /** When the request was sent (epoch ms, client clock): reconciliation matches `created_at` against it. */
  readonly sentAtMs: number;
  /** What went wrong: the transport error, or the CliError the response mapped to. */
  override readonly cause: unknown;
  /** HTTP status when a response arrived, else undefined. */
  readonly status: number | undefined;

  constructor(detail: string, options: { cause: unknown; sentAtMs: number; status?: number | undefined }) {
    super(`POST /tasks may have created a task (${detail})`, 'Check with `taskctl list` before creating it again.');
    this.cause = options.cause;
    this.sentAtMs = options.sentAtMs;
    this.status = options.status;
  }
}

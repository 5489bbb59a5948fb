/**
 * Transport failures as people read them: the client's own codes (a deadline, a request timeout, an answer too large)
 * beside Node's and undici's, each code in plain words, and the code of an error found in its cause chain.
 */

/**
 * Not a transport code: the client cut the attempt because the command's deadline (`wait --timeout`) came. Never
 * retried (there is no time left); a create cut this way may still have reached the server.
 */
export const DEADLINE_CODE = 'TASKCTL_DEADLINE';

/** Not a transport code: the whole exchange (connect, headers, complete body) outlasted `--request-timeout`. */
export const REQUEST_TIMEOUT_CODE = 'TASKCTL_REQUEST_TIMEOUT';
/** Not a transport code: the body grew past MAX_RESPONSE_BYTES and was abandoned unread. */
export const TOO_LARGE_CODE = 'TASKCTL_TOO_LARGE';

/** Codes meaning "the connection was made, and the server did not answer in time". */
const ANSWER_TIMEOUT_CODES: ReadonlySet<string> = new Set([
  REQUEST_TIMEOUT_CODE,
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/** True when the server was reached but did not send the complete answer in time. */
export function isAnswerTimeout(code: string): boolean {
  return ANSWER_TIMEOUT_CODES.has(code);
}

/** Transport codes in plain words, for messages (the codes themselves stay in `--verbose`). */
const PLAIN_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'the name lookup failed for now',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer within the request timeout',
  UND_ERR_BODY_TIMEOUT: 'the answer stalled past the request timeout',
  [REQUEST_TIMEOUT_CODE]: 'no complete answer within the request timeout',
  [DEADLINE_CODE]: 'no answer before the deadline',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection closed while sending',
  ECONNABORTED: 'the connection was aborted',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ENETDOWN: 'the network is down',
  EHOSTDOWN: 'the host is down',
  UND_ERR_SOCKET: 'the connection closed before the answer was complete',
  UND_ERR_CLOSED: 'the connection closed before the answer was complete',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'the answer was shorter or longer than announced',
};

/** `connection refused` for ECONNREFUSED; an unknown code is returned as it is (better than nothing). */
export function plainWords(code: string): string {
  return Object.hasOwn(PLAIN_WORDS, code) ? (PLAIN_WORDS[code] ?? code) : code;
}

/** The `code` of an error or of the first error in its `cause` chain (undici and Node set one on network errors). */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A certificate the handshake refused (self-signed, unknown issuer, expired, another host's): a CA or host matter. */
export function isCertificateCode(code: string): boolean {
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code);
}

/**
 * An error's message on one line. OpenSSL's form (`80FC…:error:0A00010B:SSL routines:ssl3_get_record:wrong version
 * number:../deps/openssl/…:350:` and a newline) is reduced to its reason (`wrong version number`).
 */
export function oneLineMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const reason = /error:[0-9A-F]+:[^:]*:[^:]*:([^:]+)/i.exec(text)?.[1];
  return (reason ?? text).replace(/\s+/g, ' ').trim();
}

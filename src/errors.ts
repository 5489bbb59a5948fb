/** Stable exit codes, documented in docs/behaviour.md#exit-codes and `taskctl --help`. */
export const ExitCode = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  input: 3,
  auth: 4,
  notFound: 5,
  balance: 6,
  rateLimited: 7,
  unavailable: 8,
  createUnknown: 9,
  taskFailed: 10,
  itemsFailed: 11,
  refused: 12,
  /** The user answered no at a confirmation prompt (or gave no answer): their decision, not a failure or Ctrl-C. */
  declined: 13,
  /** stdout or stderr, or a job's journal, could not be written (a full disk, a closed descriptor); a closed pipe on
   * stdout is not this. */
  outputFailed: 14,
  /** `diff`: the two sides differ (as `git diff --exit-code`; 1 already means a bug). */
  differ: 15,
  timeout: 124,
  /** SIGHUP (the terminal closed): 128 + 1, by the shells' convention; otherwise as `interrupted`. */
  hungUp: 129,
  interrupted: 130,
  /** SIGTERM (`kill`, a CI runner's stop): 128 + 15; otherwise as `interrupted`. */
  terminated: 143,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** Brands CliErrors of every bundle: dist/sandbox.cjs has its own copy of these classes, and its errors (port in use,
 * state file locked) must still reach their exit code instead of "a bug in taskctl". */
const CLI_ERROR: unique symbol = Symbol.for('taskctl.CliError');

/** An error the user can act on: `main` prints `message` (and `hint`) and returns `exitCode`. */
export class CliError extends Error {
  readonly [CLI_ERROR] = true;
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== CliError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && CLI_ERROR in value;
  }
  readonly exitCode: number;
  /** Second line: what to do next. */
  readonly hint: string | undefined;
  constructor(message: string, exitCode: number, hint?: string) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.hint = hint;
  }
}

export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.usage, hint);
  }
}
export class InputError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.input, hint);
  }
}
export class AuthError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.auth, hint);
  }
}
export class NotFoundError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.notFound, hint);
  }
}
export class BalanceError extends CliError {
  /** `covers`: what the balance covers (`The balance covers 2 of the 10 items.`), when it was read. */
  constructor(
    message: string,
    hint?: string,
    readonly covers?: string,
  ) {
    super(message, ExitCode.balance, hint);
  }
}
export class RateLimitError extends CliError {
  /** The window the refusal stated: when the service takes requests again, and its limit when its headers said. */
  window?: { resetAtMs: number; limit?: number };
  constructor(message: string, hint?: string) {
    super(message, ExitCode.rateLimited, hint);
  }
}
/** Network errors, timeouts, 5xx, `internal_error`, malformed responses: after trying again. */
export class UnavailableError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.unavailable, hint);
  }
}
/** A 4xx with an error code taskctl does not know (e.g. 409 `conflict`): the server's refusal, not sent again. */
export class RefusedError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.refused, hint);
  }
}
/** A 2xx answer taskctl cannot read (not JSON, wrong shape): asking again gets the same answer, so polling stops. */
export class MalformedResponseError extends UnavailableError {}
/** POST /tasks may or may not have created a task, and reconciliation could not tell. */
export class CreateUnknownError extends CliError {
  /**
   * `candidates`: the tasks the message names as possibly the request's (a job's journal keeps them). `keyRefused`: the
   * advice of a key the service refused while the list was read, the first thing to do (a job's hint keeps it).
   */
  constructor(
    message: string,
    hint?: string,
    readonly candidates: readonly number[] = [],
    readonly keyRefused?: string,
  ) {
    super(message, ExitCode.createUnknown, hint);
  }
}
/**
 * A `--reuse-window` search that found no match and stopped at its page bound before the window's start, or at its
 * bound on candidate reads with older ones left: whether the items already have a task is unknown, so nothing was sent
 * (exit 9, as any create whose outcome cannot be told; never "none found, send").
 */
export class ReuseUnsearchedError extends CliError {
  /**
   * `shorter`: a window (ms) the pages read (or the candidates read) do cover, shorter than the one searched, when there
   * is one; `searched`: the window searched (ms) and its start (`since`, server-clock ms), from which a shorter window
   * leaves tasks unlooked at, and what covers the shorter one (`by`: `the list covers`, `the reads cover`).
   */
  constructor(
    message: string,
    hint: string,
    readonly shorter?: number,
    readonly searched?: { window: number; since: number | undefined; by?: string },
  ) {
    super(message, ExitCode.createUnknown, hint);
  }
}
export class DeclinedError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.declined, hint);
  }
}
export class InterruptedError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.interrupted, hint);
  }
}
/**
 * Ctrl-C (or SIGTERM) stopped a read: it changed nothing, and the same command reads it again (docs/behaviour.md#exit-codes).
 * One wording for every command that only reads, and for `taskctl api` with GET.
 */
export function readInterrupted(): InterruptedError {
  return new InterruptedError('interrupted', 'Nothing was changed; run the same command again.');
}
/** Ctrl-C while a create's POST had not left (waiting for the rate limit): nothing can have been created. */
export class InterruptedBeforeSendError extends InterruptedError {}

/**
 * Ctrl-C (or SIGTERM) before any request that could act had left: `nothing` says what therefore did not happen
 * (`nothing was created`), `hint` how to do it after all. One wording for `create` and `taskctl api`.
 */
export function interruptedBeforeSend(nothing: string, hint: string): InterruptedBeforeSendError {
  return new InterruptedBeforeSendError(`interrupted before anything was sent: ${nothing}`, hint);
}

/**
 * A system error (file system or network) in plain words: `permission denied` for EACCES, `connection refused` for
 * ECONNREFUSED. The one mapping for every message people read: an errno name or Node's raw text is never shown.
 * `error` is an Error with a `code` (its `cause` chain is searched, as undici nests them) or a code itself.
 */
export function systemErrorWords(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && current !== undefined; depth++) {
    const code = typeof current === 'string' ? current : (current as { code?: unknown }).code;
    if (typeof code === 'string' && Object.hasOwn(SYSTEM_ERROR_WORDS, code)) return SYSTEM_ERROR_WORDS[code] ?? code;
    if (typeof current !== 'object') break;
    current = (current as { cause?: unknown }).cause;
  }
  return 'an unexpected system error';
}

/** An error as people read it: taskctl's own message (a CliError says it in words), else the system error in words. */
export function errorWords(error: unknown): string {
  return error instanceof CliError ? error.message : systemErrorWords(error);
}

const SYSTEM_ERROR_WORDS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'it is a directory',
  EEXIST: 'it already exists',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  EFBIG: 'the file is too large',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  ELOOP: 'a symlink on the path loops',
  ENAMETOOLONG: 'the path is too long',
  EBUSY: 'it is busy',
  EIO: 'an input/output error',
  EBADF: 'the file descriptor is closed',
  ENXIO: 'no such device (a FIFO with no reader?)',
  ETXTBSY: 'it is in use',
  EPIPE: 'the reader went away',
  ECONNREFUSED: 'connection refused (nothing listens there)',
  ECONNRESET: 'the connection was reset',
  ECONNABORTED: 'the connection was aborted',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer in time',
  UND_ERR_BODY_TIMEOUT: 'the answer stalled',
  UND_ERR_SOCKET: 'the connection closed before the answer was complete',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'the name lookup failed for now',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ENETDOWN: 'the network is down',
  EHOSTDOWN: 'the host is down',
  EADDRINUSE: 'the address is in use',
  EADDRNOTAVAIL: 'the address is not available on this machine',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  CERT_NOT_YET_VALID: 'its TLS certificate is not valid yet',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate cannot be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: "its TLS certificate is another host's",
};

/** The signals that stop a command as Ctrl-C does, and the exit code each gives (128 + its number). */
export const STOP_SIGNALS = {
  SIGINT: ExitCode.interrupted,
  SIGTERM: ExitCode.terminated,
  SIGHUP: ExitCode.hungUp,
} as const;

/**
 * A run that ended as interrupted (130) by SIGTERM or SIGHUP exits by that signal's convention (143, 129); every other
 * code, a server's 0 for a requested stop included, stays.
 */
export function signalExitCode(code: number, signal: AbortSignal): number {
  if (code !== ExitCode.interrupted || !signal.aborted) return code;
  const name = (signal.reason as { signal?: unknown } | undefined)?.signal;
  return typeof name === 'string' && Object.hasOwn(STOP_SIGNALS, name)
    ? STOP_SIGNALS[name as keyof typeof STOP_SIGNALS]
    : code;
}

/**
 * The journal's path no longer names the file this run holds (renamed or removed while it ran): the run stops before
 * its next request, exit 2 as for a job another run holds; its hint names the job's new name (`now`, when found).
 */
export class JournalMovedError extends UsageError {
  constructor(
    message: string,
    hint: string,
    readonly now?: string,
  ) {
    super(message, hint);
  }
}

/**
 * A chunk of a journal put back from an earlier copy that this machine's ledger no longer names a task for when its
 * turn comes (core/submit/send.ts): it may have been created, so the run stops before sending it, exit 9; its hint (the
 * look on the service that settles it) is kept as it is.
 */
export class RestoredChunkError extends CliError {
  constructor(message: string, hint: string) {
    super(message, ExitCode.createUnknown, hint);
  }
}

/** A job's journal could not be written (a full disk, an I/O error): the job stops before its next request. */
export class JournalWriteError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.outputFailed, hint);
  }
}

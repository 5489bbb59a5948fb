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
  interrupted: 130,
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
  constructor(message: string, hint?: string) {
    super(message, ExitCode.balance, hint);
  }
}
export class RateLimitError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.rateLimited, hint);
  }
}
/** Network errors, timeouts, 5xx, `internal_error`, malformed responses: after retries. */
export class UnavailableError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.unavailable, hint);
  }
}
/** A 4xx with an error code taskctl does not know (e.g. 409 `conflict`): the server's refusal, not retried. */
export class RefusedError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.refused, hint);
  }
}
/** A 2xx answer taskctl cannot read (not JSON, wrong shape): asking again gets the same answer, so polling stops. */
export class MalformedResponseError extends UnavailableError {}
/** POST /tasks may or may not have created a task, and reconciliation could not tell. */
export class CreateUnknownError extends CliError {
  constructor(message: string, hint?: string) {
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
/** Ctrl-C while a create's POST had not left (waiting for the rate limit): nothing can have been created. */
export class InterruptedBeforeSendError extends InterruptedError {}
/** A job's journal could not be written (a full disk, an I/O error): the job stops before its next request. */
export class JournalWriteError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.outputFailed, hint);
  }
}

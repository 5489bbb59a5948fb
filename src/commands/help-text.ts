/**
 * What a command file needs to register itself on the commander tree: the action runner's type and the help-text
 * helpers. A leaf module (types and strings only), so commands never import program.ts (no import cycles).
 */
import type { Command } from 'commander';
import type { Context } from '../context.js';

export type CommandAction = (ctx: Context) => Promise<void>;
/** Runs a command's action with a context built from the parsed global flags of `command`. */
export type RunAction = (command: Command, action: CommandAction) => Promise<void>;

/** The exit-code table of `taskctl --help` and the README (DESIGN.md section 2; values from `ExitCode` in errors.ts). */
export const EXIT_CODES: ReadonlyArray<[code: number, meaning: string]> = [
  [0, 'success'],
  [1, 'unexpected error (a bug: please report it), or the output could not be written'],
  [2, 'usage error: unknown command or flag, bad flag value, missing configuration'],
  [3, 'invalid input data (items file, server validation_error); nothing was sent or created'],
  [4, 'authentication: no key configured, 401 unauthorized or 403'],
  [5, 'not found: task or service'],
  [6, 'insufficient balance, or --max-cost would be exceeded; nothing was created'],
  [7, 'rate limited, still limited after retries or the deadline'],
  [8, 'service unavailable: network error, timeout, 5xx or malformed response, after retries'],
  [9, 'create outcome unknown: a task may have been created (run the printed `taskctl list` command)'],
  [10, 'a waited-on task ended without completing (failed, cancelled, expired, ...)'],
  [11, 'waited-on tasks completed, but some items did not (--allow-item-failures makes this 0)'],
  [12, 'the service refused the request (an error code taskctl does not know); not retried: check the message'],
  [13, 'declined at the confirmation prompt (answered no, or no answer); nothing was created'],
  [124, 'wait/watch timed out with tasks still unfinished'],
  [130, 'interrupted (Ctrl-C); the message says how to resume'],
];

/** The "Examples:" block of a command's `--help`. */
export function examples(lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((line) => `  ${line}`).join('\n')}\n`;
}

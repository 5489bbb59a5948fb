/**
 * The commander tree: global flags, exit-override, help text with examples and the exit-code table. Command files
 * register their own flags; their logic loads lazily so `--help` and `--version` stay fast.
 */
import { Command, Option } from 'commander';
import type { Context } from './context.js';
import type { IO } from './output/io.js';
import { VERSION } from './version.js';
import { registerCommands } from './commands/index.js';

export type CommandAction = (ctx: Context) => Promise<void>;
/** Runs a command's action with a context built from the parsed global flags of `command`. */
export type RunAction = (command: Command, action: CommandAction) => Promise<void>;

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

export function examples(lines: ReadonlyArray<string>): string {
  return `\nExamples:\n${lines.map((line) => `  ${line}`).join('\n')}\n`;
}

export function buildProgram(io: IO, run: RunAction): Command {
  const program = new Command('taskctl');
  program
    .description(
      'Command-line client for the task-processing service: services, balance, batch tasks and their results.',
    )
    .version(VERSION, '--version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // The injected streams, not process.stdout: the build renders help for dist/help.json through memory streams.
      // 80 is commander's own default when the stream is not a terminal.
      getOutHelpWidth: () => (io.stdout.isTTY ? (io.stdout.columns ?? 80) : 80),
      getErrHelpWidth: () => (io.stderr.isTTY ? (io.stderr.columns ?? 80) : 80),
    })
    .exitOverride()
    .showSuggestionAfterError(true)
    .allowExcessArguments(false)
    .option('--profile <name>', 'config profile to use (env TASKCTL_PROFILE)')
    .option('--base-url <url>', 'API base URL (env TASKCTL_BASE_URL)')
    .option(
      '--api-key-file <path>',
      'read the API key from a file (- = stdin); there is no flag that takes the key itself',
    )
    .addOption(
      new Option('-o, --output <format>', 'output format (default: table on a terminal, tsv otherwise)').choices([
        'table',
        'tsv',
        'csv',
        'json',
        'ndjson',
      ]),
    )
    .option('--json', 'same as -o json')
    .option('--no-color', 'disable colour (also NO_COLOR, TERM=dumb)')
    .option('-q, --quiet', 'print only essential output')
    .option('-v, --verbose', 'trace HTTP requests on stderr (secrets redacted)')
    .option('--request-timeout <duration>', 'per-request timeout, e.g. 30s')
    .option('--no-input', 'never prompt')
    .option('--ci', 'CI mode (also when CI is set): no spinners or prompts, timestamped progress')
    .option('--sandbox', 'start a local sandbox service for this one invocation and talk to it');

  registerCommands(program, run);

  program.addHelpText(
    'after',
    `${examples([
      'taskctl --sandbox services',
      'taskctl --sandbox create domain_check_availability example.com fail-x.com --wait',
      'cut -f1 domains.txt | taskctl create domain_check_availability -q | taskctl wait -',
      'taskctl list --status failed -o json | jq ".[].id"',
    ])}\nExit codes:\n${EXIT_CODES.map(([code, meaning]) => `  ${String(code).padStart(3)}  ${meaning}`).join('\n')}\n\nEnvironment: TASKCTL_API_KEY, TASKCTL_BASE_URL, TASKCTL_PROFILE, TASKCTL_OUTPUT, TASKCTL_CONFIG_DIR, NO_COLOR, FORCE_COLOR, CI, HTTPS_PROXY, NO_PROXY.\n`,
  );
  return program;
}

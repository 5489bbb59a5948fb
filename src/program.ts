/**
 * The commander tree: global flags, exit-override, help text with examples and the exit-code table. Command files
 * register their own flags; their logic loads lazily so `--help` and `--version` stay fast.
 */
import { Command, Option } from 'commander';
import type { IO } from './output/io.js';
import { VERSION } from './version.js';
import { registerCommands } from './commands/index.js';
import { EXIT_CODES, examples, type RunAction } from './commands/help-text.js';

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

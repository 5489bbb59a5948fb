/**
 * The commander tree: global flags, exit-override, help text with examples and the exit-code table. Command files
 * register their own flags; their logic loads lazily so `--help` and `--version` stay fast.
 */
import { Command, Help, Option, type Argument, type HelpContext } from 'commander';
import type { IO } from './output/io.js';
import { VERSION } from './version.js';
import { registerCommands } from './commands/index.js';
import { EXIT_CODES, examples, wrapHelp, type RunAction } from './commands/help-text.js';
import { duration, profileName } from './commands/parsers.js';
import { formatDuration } from './lib/duration.js';
import { terminalColumns } from './output/terminal-size.js';
import { fitToStream } from './output/width.js';

/**
 * `argv`: the arguments about to be parsed, when only the command they name needs registering (main.ts). `redact`:
 * what commander's refusals pass through before they are printed (they echo the value refused: a key pasted there).
 */
export function buildProgram(
  io: IO,
  run: RunAction,
  argv?: readonly string[],
  redact: (text: string) => string = (text) => text,
): Command {
  // 80 is commander's own default when the stream is not a terminal, and the rule's for one that reports no width.
  const outWidth = () => (io.stdout.isTTY ? terminalColumns(io.stdout.columns) : 80);
  const errWidth = () => (io.stderr.isTTY ? terminalColumns(io.stderr.columns) : 80);
  const program = new Command('taskctl');
  program
    .description(
      'Command-line client for the task-processing service: services, balance, batch tasks and their results.',
    )
    .version(VERSION, '--version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .configureOutput({
      // Commander writes only help and --version here: every line fitted to the width (examples and notes too).
      writeOut: (text) => io.stdout.write(wrapHelp(text, outWidth())),
      writeErr: (text) => io.stderr.write(wrapHelp(text, errWidth())),
      // Error messages wrapped like every message on a terminal; a log keeps them on one line.
      outputError: (text) => io.stderr.write(fitToStream(redact(text), io.stderr)),
      // The injected streams, not process.stdout: the build renders help for dist/help.json through memory streams.
      getOutHelpWidth: outWidth,
      getErrHelpWidth: errWidth,
    })
    .configureHelp({ optionDescription, argumentDescription, subcommandTerm, formatHelp })
    .exitOverride()
    .showSuggestionAfterError(true)
    .allowExcessArguments(false)
    .option('--profile <name>', 'config profile to use (env TASKCTL_PROFILE)', profileName)
    .option('--base-url <url>', 'API base URL (env TASKCTL_BASE_URL)')
    .option(
      '--api-key-file <path>',
      'read the API key from a file (- = stdin); there is no flag that takes the key itself',
    )
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['table', 'tsv', 'csv', 'json', 'ndjson'])
        .default(undefined, 'table on a terminal, tsv otherwise'),
    )
    .option('--json', 'same as -o json')
    .option('--no-color', 'disable colour (also NO_COLOR, TERM=dumb)')
    .option('-q, --quiet', 'print only what the next command takes: ids, one a line')
    .option('-v, --verbose', 'trace HTTP requests on stderr (secrets redacted)')
    .addOption(
      new Option('--request-timeout <duration>', 'budget of one request, every attempt included, e.g. 20s').default(
        undefined,
        '35s; a create: 60s per attempt',
      ),
    )
    .option('--no-input', 'never prompt')
    .option('--ci', 'CI mode (also when CI is set): no spinners or prompts, timestamped progress')
    .option('--sandbox', 'start a local sandbox service for this one invocation and talk to it');

  registerCommands(program, run, argv && commandWord(program, argv));
  // Every error names the next step: commander's own refusals (a missing argument, a bad flag value) end
  // with where the usage and examples are, for the command that refused.
  // Said in taskctl's words, like every other usage error (docs/behaviour.md#for-people), not commander's.
  const nextStep = (command: Command, path: string): void => {
    command.configureOutput({
      outputError: (text) => io.stderr.write(fitToStream(redact(commanderWords(text, command, path)), io.stderr)),
    });
    command.showHelpAfterError(`Run \`${path} --help\` for usage and examples.`);
    if (command.commands.length > 0) helpOfNoCommand(command);
    for (const sub of command.commands) nextStep(sub, `${path} ${sub.name()}`);
  };
  nextStep(program, 'taskctl');

  program.addHelpText(
    'after',
    `${examples([
      'taskctl --sandbox services',
      'taskctl --sandbox create domain_check_availability a.com fail-x.com --wait',
      'taskctl create domain_check_availability -f domains.txt -q -y | taskctl wait -',
      'taskctl list --status failed -o json | jq ".[].id"',
    ])}\nExit codes:\n${EXIT_CODES.map(([code, meaning]) => `  ${String(code).padStart(3)}  ${meaning}`).join('\n')}\n\nEnvironment: TASKCTL_API_KEY, TASKCTL_BASE_URL, TASKCTL_PROFILE, TASKCTL_OUTPUT, TASKCTL_CONFIG_DIR, TASKCTL_CACHE_DIR, TASKCTL_STATE_DIR, NO_COLOR, FORCE_COLOR, CI, HTTPS_PROXY, NO_PROXY.\n`,
  );
  return program;
}

/**
 * `taskctl help NAME` for a NAME that is no command: refused as `taskctl NAME` is (exit 2, the closest command), not
 * the whole help printed as an error. Commander dispatches `help NAME` to a subcommand it cannot find by showing help
 * with `error` set, the command's arguments then being `help NAME`; a bare `taskctl config` keeps its help.
 */
function helpOfNoCommand(command: Command): void {
  const commander = command as unknown as { help: (context?: HelpContext) => never; unknownCommand: () => never };
  const help = commander.help.bind(command);
  commander.help = (context) => {
    const [word, name] = command.args;
    if (context?.error === true && word === 'help' && name !== undefined) {
      command.args = [name];
      // Commander's own refusal of an unknown command (its suggestion included), in taskctl's words below.
      commander.unknownCommand();
    }
    return help(context);
  };
}

/** `-o, --output <format>` as commander quotes an option's flags → its name `--output` and `--output <format>`. */
function flagParts(flags: string): { name: string; value: string } {
  const name = /--[\w-]+/.exec(flags)?.[0] ?? flags.split(/[ ,]/)[0] ?? flags;
  const value = /[<[][^>\]]*[>\]]/.exec(flags)?.[0];
  return { name, value: value === undefined ? name : `${name} ${value}` };
}

/**
 * Commander's `(Did you mean --limit?)` as taskctl says it: ` (did you mean --limit?)`, quoted as `quote` does. A
 * command suggested by its name and an alias (`list`, `ls`) is one command: suggested once, by its name.
 */
function didYouMean(text: string, quote: (word: string) => string, command?: Command): string {
  const similar = /\n\(Did you mean (?:one of )?(.+)\?\)/.exec(text)?.[1];
  if (similar === undefined) return '';
  const suggested = similar.split(', ');
  const named = (word: string) =>
    command?.commands.find((sub) => sub.aliases().includes(word) && suggested.includes(sub.name()))?.name() ?? word;
  const words = [...new Set(suggested.map(named))].map(quote);
  return ` (did you mean ${words.length > 1 ? `one of ${words.join(', ')}` : words[0]}?)`;
}

/** A list as a sentence says it: `a, b or c`. */
function orList(words: readonly string[]): string {
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words.at(-1)}` : (words[0] ?? '');
}

/**
 * Commander's own refusals (commander 14's texts, command.js) in taskctl's words: `taskctl list has no flag --limt
 * (did you mean --limit?)`, `--status needs a value: --status <status>`. A text not recognised is left as it is.
 */
function commanderWords(text: string, command: Command, path: string): string {
  const quoted = (word: string) => `"${word}"`;
  const say = (words: string) => `error: ${words}\n`;
  let m: RegExpExecArray | null;
  if ((m = /^error: unknown option '(.*)'/.exec(text))) {
    const flag = m[1] ?? '';
    // A negative value (`-5s`) reads as a flag; after `--` it is a value.
    if (/^-\d/.test(flag))
      return say(`${path} has no flag ${flag} (a value that starts with "-" goes after --: ${path} … -- ${flag})`);
    // `--all=yes`: commander names the flag with the value given to it.
    const name = /^(--[^=]+)=/.exec(flag)?.[1];
    if (name !== undefined && knownFlag(command, name)) return say(`${name} takes no value (${flag} given)`);
    return say(`${path} has no flag ${name ?? flag}${didYouMean(text, (word) => word)}`);
  }
  if ((m = /^error: unknown command '(.*)'/.exec(text)))
    return say(`${path} has no command ${quoted(m[1] ?? '')}${didYouMean(text, quoted, command)}`);
  if ((m = /^error: option '(.*)' argument missing/.exec(text))) {
    const { name, value } = flagParts(m[1] ?? '');
    return say(`${name} needs a value: ${value}`);
  }
  if ((m = /^error: option '(.*)' argument '(.*)' is invalid\. (.*)/s.exec(text)))
    return say(`${flagParts(m[1] ?? '').name} ${quoted(m[2] ?? '')}: ${invalidWhy(m[3] ?? '')}`);
  if ((m = /^error: command-argument value '(.*)' is invalid for argument '(.*)'\. (.*)/s.exec(text)))
    return say(`<${m[2] ?? ''}> ${quoted(m[1] ?? '')}: ${invalidWhy(m[3] ?? '')}`);
  if ((m = /^error: too many arguments.*Expected (\d+) arguments? but got (\d+)\./.exec(text))) {
    const expected = Number(m[1]);
    const takes = expected === 0 ? 'no arguments' : `at most ${expected} argument${expected === 1 ? '' : 's'}`;
    return say(`${path} takes ${takes} (${m[2] ?? ''} given)`);
  }
  if ((m = /^error: missing required argument '(.*)'/.exec(text)))
    return say(`${path} needs its <${m[1] ?? ''}> argument`);
  return text;
}

/** True when `command` or a command above it (a global flag) has the flag `--name`, `--help` included. */
function knownFlag(command: Command, name: string): boolean {
  for (let at: Command | null = command; at; at = at.parent) {
    if (
      at
        .createHelp()
        .visibleOptions(at)
        .some((option) => option.long === name)
    )
      return true;
  }
  return false;
}

/** Why a value was refused: commander's `Allowed choices are a, b, c.` as `should be one of a, b or c`, else its words. */
function invalidWhy(text: string): string {
  const choices = /^Allowed choices are (.*)\.\n?$/.exec(text)?.[1];
  return choices === undefined ? text.trim() : `should be one of ${orList(choices.split(', '))}`;
}

/**
 * The command `argv` names: its first word after the global options, or undefined when that is not certain (an option
 * the root does not know, `-qv`, `--`): then every command is registered and commander decides, as always.
 */
function commandWord(program: Command, argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('-')) return arg;
    if (arg.startsWith('--') && arg.includes('=')) continue;
    const option = program.options.find((o) => o.long === arg || o.short === arg);
    if (!option || option.optional) return undefined;
    if (option.required) i++; // its value
  }
  return undefined;
}

/**
 * An option's help line as a person writes values: durations as `2s` or `30m` (not milliseconds), strings without
 * quotes, no default for a flag that takes no value (`--no-x` says it already), choices listed plainly.
 */
function optionDescription(option: Option): string {
  return withValues(option.description, option, option.required || option.optional);
}

function argumentDescription(argument: Argument): string {
  return withValues(argument.description, argument, true);
}

function withValues(description: string, value: Option | Argument, takesValue: boolean): string {
  const extra: string[] = [];
  if (value.argChoices) extra.push(`values: ${value.argChoices.join(', ')}`);
  const shown = takesValue ? defaultText(value) : undefined;
  if (shown !== undefined) extra.push(`default: ${shown}`);
  if (!extra.length) return description;
  return description ? `${description} (${extra.join('; ')})` : `(${extra.join('; ')})`;
}

function defaultText(option: Option | Argument): string | undefined {
  if (option.defaultValueDescription !== undefined) return option.defaultValueDescription;
  const value: unknown = option.defaultValue;
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return undefined;
  if (option.parseArg === duration && typeof value === 'number') return value === 0 ? '0' : formatDuration(value);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A command in a list of commands: its name, aliases and arguments (its own help lists its options). */
function subcommandTerm(this: Help, command: Command): string {
  return Help.prototype.subcommandTerm.call(this, command).replace(' [options]', '');
}

/** Commander's layout, then every subcommand lists the global options it inherits (gh's INHERITED FLAGS). */
function formatHelp(this: Help, command: Command, helper: Help): string {
  const text = Help.prototype.formatHelp.call(this, command, helper);
  const root = rootOf(command);
  if (root === command) return text;
  const terms = root.options
    .filter((option) => !option.hidden && option.long !== '--version')
    .map((option) => helper.optionTerm(option));
  return `${text}\nGlobal options (see taskctl --help):\n${packTerms(terms, Math.min(helper.helpWidth ?? 80, 80))}\n`;
}

function rootOf(command: Command): Command {
  let root = command;
  while (root.parent) root = root.parent;
  return root;
}

/** Terms side by side, two spaces apart, as many on a line as fit (at most 80 wide: the same on any wider terminal). */
function packTerms(terms: readonly string[], width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const term of terms) {
    if (line !== '' && line.length + 2 + term.length > width) {
      lines.push(line);
      line = '';
    }
    line = line === '' ? `  ${term}` : `${line}  ${term}`;
  }
  if (line !== '') lines.push(line);
  return lines.join('\n');
}

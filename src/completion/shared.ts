/** Pieces the three generators share: quoting, and the model flattened into per-command tables. */
import {
  allCommands,
  oneLine,
  optionsOf,
  type CommandModel,
  type CompletionModel,
  type OptionModel,
  type ValueHint,
} from './model.js';

/**
 * The hidden command the scripts call for dynamic values (`services`, `tasks`), with a short timeout for the one
 * network call it makes when the cache is empty (see src/commands/completion.ts).
 */
export const DYNAMIC_COMMAND = '--request-timeout 1500ms __complete';

const GENERATED_NOTE =
  'Generated from the command tree by `npm run completions` (also printed by `taskctl completion SHELL`); do not edit.';

/** What each generator writes with: names derived from the program, every command, and the lines so far. */
export interface ScriptWriter {
  /** The program as a shell identifier: `taskctl` → `taskctl` (`my-cli` → `my_cli`). */
  ident: string;
  /** Prefix of the script's helper functions and variables: `__taskctl`. */
  fn: string;
  commands: CommandModel[];
  out: (...text: string[]) => void;
  /** The script so far, newline-terminated. */
  text: () => string;
}

/**
 * Starts a script with its header: `first` lines (zsh's `#compdef`), what it is, that it is generated, and how to
 * install it (`install[0]`, then alternatives; a `{ then }` is the step that finishes the one before it).
 */
export function startScript(
  model: CompletionModel,
  shell: string,
  install: ReadonlyArray<string | { then: string }>,
  first: string[] = [],
): ScriptWriter {
  const prog = model.program;
  const ident = prog.replace(/[^A-Za-z0-9_]/g, '_');
  const lines: string[] = [];
  const out = (...text: string[]) => lines.push(...text);
  out(
    ...first,
    `# ${shell} completion for ${prog}`,
    `# ${GENERATED_NOTE}`,
    ...install.map((line, index) =>
      typeof line === 'string' ? `${index === 0 ? '# Install: ' : '#      or: '}${line}` : `#    then: ${line.then}`,
    ),
    '',
  );
  return { ident, fn: `__${ident}`, commands: allCommands(model), out, text: () => `${lines.join('\n')}\n` };
}

/** POSIX single quotes for bash and zsh: `it's` → `'it'\''s'`. */
export function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A command's key in the scripts' tables: canonical names joined by spaces, '' for the root. */
export function pathKey(command: CommandModel): string {
  return command.path.join(' ');
}

export interface Entry {
  name: string;
  description: string;
}

/** Subcommands and their aliases, each with the subcommand's description. */
export function subcommandEntries(command: CommandModel): Entry[] {
  return command.subcommands.flatMap((sub) =>
    [sub.name, ...sub.aliases].map((name) => ({ name, description: oneLine(sub.description) })),
  );
}

/** `word` under `parent` → the subcommand's key, for every name and alias. */
export function resolutions(command: CommandModel): Array<{ parent: string; word: string; target: string }> {
  return command.subcommands.flatMap((sub) =>
    [sub.name, ...sub.aliases].map((word) => ({ parent: pathKey(command), word, target: pathKey(sub) })),
  );
}

export interface ValueFlag {
  flag: string;
  hint: ValueHint;
}

function valueFlags(options: readonly OptionModel[]): ValueFlag[] {
  return options.flatMap(({ flags, value }) => (value ? flags.map((flag) => ({ flag, hint: value })) : []));
}

/** Flags of this command (not the globals) that take a value. */
export function ownValueFlags(command: CommandModel): ValueFlag[] {
  return valueFlags(command.options);
}

/** Global flags that take a value: valid under every command. */
export function globalValueFlags(model: CompletionModel): ValueFlag[] {
  return valueFlags([...model.globals, ...model.rootOnly]);
}

function entries(options: readonly OptionModel[]): Entry[] {
  return options.flatMap((option) => option.flags.map((name) => ({ name, description: oneLine(option.description) })));
}

/** The global flags (accepted under every command), with their descriptions. */
export function globalOptionEntries(model: CompletionModel): Entry[] {
  return entries(model.globals);
}

/** The flags a command accepts besides the global ones (`--version` at the root). */
export function ownOptionEntries(model: CompletionModel, command: CommandModel): Entry[] {
  const global = new Set(model.globals.flatMap((option) => option.flags));
  return entries(optionsOf(model, command)).filter((entry) => !global.has(entry.name));
}

/** Positional arguments that have something to offer, with their index; `variadic` = this index and every later one. */
export function argumentHints(command: CommandModel): Array<{ index: number; variadic: boolean; hint: ValueHint }> {
  return command.args.flatMap((arg, index) =>
    arg.hint.kind === 'none' ? [] : [{ index, variadic: arg.variadic, hint: arg.hint }],
  );
}

/** How a shell script records a value hint: `fn_kind=...` plus the choices in the shell's own list form. */
export type HintAssignment = (fn: string, hint: ValueHint) => string;

/** bash and zsh: a `by-first` hint as a case over the first positional argument (`$3` of `fn_argument`). */
export function byFirstCase(
  fn: string,
  choices: Readonly<Record<string, readonly string[]>>,
  assign: HintAssignment,
): string {
  const arms = Object.entries(choices).map(
    ([first, values]) => `${shQuote(first)}) ${assign(fn, { kind: 'choices', values })} ;;`,
  );
  return `case $3 in ${arms.join(' ')} esac`;
}

/**
 * The `fn_value` and `fn_argument` shell functions (identical in bash and zsh but for how choices are stored, in
 * `listVar`): which kind of value a flag or positional argument takes, per command path.
 */
export function valueAndArgumentFunctions(
  fn: string,
  model: CompletionModel,
  commands: readonly CommandModel[],
  listVar: string,
  assign: HintAssignment,
): string[] {
  const lines = [
    `# $1 = command path, $2 = flag: sets ${fn}_kind (choices, file, services, tasks, jobs, report, none) and, for choices,`,
    `# ${fn}_${listVar}; fails when the flag takes no value.`,
    `${fn}_value() {`,
    '  case "$1|$2" in',
  ];
  for (const command of commands) {
    for (const { flag, hint } of ownValueFlags(command))
      lines.push(`    ${shQuote(`${pathKey(command)}|${flag}`)}) ${assign(fn, hint)} ;;`);
  }
  for (const { flag, hint } of globalValueFlags(model))
    lines.push(`    *${shQuote(`|${flag}`)}) ${assign(fn, hint)} ;;`);
  lines.push('    *) return 1 ;;', '  esac', '}', '');
  lines.push(
    `# $1 = command path, $2 = index of the positional argument, $3 = the first positional argument: sets ${fn}_kind`,
    `# (and ${fn}_${listVar}); fails when there is nothing to offer.`,
    `${fn}_argument() {`,
    `  ${fn}_kind=''`,
    '  case $1 in',
  );
  for (const command of commands) {
    const hints = argumentHints(command);
    if (hints.length === 0) continue;
    const tests = hints.map(
      ({ index, variadic, hint }) => `(( $2 ${variadic ? '>=' : '=='} ${index} )); then ${assign(fn, hint)}`,
    );
    lines.push(`    ${shQuote(pathKey(command))}) if ${tests.join('; elif ')}; fi ;;`);
  }
  lines.push('  esac', `  [[ -n $${fn}_kind ]]`, '}', '');
  return lines;
}

/**
 * The body of the loop over the words before the cursor (`w`), the same in bash and zsh: skips a flag's value, counts
 * positional arguments, and walks down the command path (`cmdpath`) while the words name subcommands.
 */
export function wordScanBody(fn: string): string[] {
  return [
    "    if [[ -n $flag ]]; then flag=''; continue; fi",
    '    if ((dashdash)); then ((npos == 0)) && first=$w; npos=$((npos + 1)); continue; fi',
    '    case $w in',
    '      --) dashdash=1 ;;',
    '      --*=*) ;;',
    `      -?*) ${fn}_value "$cmdpath" "$w" && flag=$w ;;`,
    `      *) if ((npos == 0)) && ${fn}_resolve "$cmdpath" "$w"; then cmdpath=$${fn}_r; else ((npos == 0)) && first=$w; npos=$((npos + 1)); fi ;;`,
    '    esac',
  ];
}

/** bash and zsh: `FN_resolve PATH WORD` sets `FN_r` to the subcommand's path, or fails when WORD is not a subcommand. */
export function resolveFunction(fn: string, commands: readonly CommandModel[]): string[] {
  const lines = [
    `# $1 = command path, $2 = word: sets ${fn}_r to the subcommand's path; fails when $2 is not a subcommand.`,
    `${fn}_resolve() {`,
    '  case "$1|$2" in',
  ];
  for (const command of commands) {
    for (const { parent, word, target } of resolutions(command))
      lines.push(`    ${shQuote(`${parent}|${word}`)}) ${fn}_r=${shQuote(target)} ;;`);
  }
  lines.push('    *) return 1 ;;', '  esac', '}', '');
  return lines;
}

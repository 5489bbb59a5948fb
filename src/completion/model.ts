/**
 * The commander tree reduced to what a shell needs to complete a command line: command paths, aliases, flags (which
 * take a value, and what values), positional arguments. One model feeds the bash, zsh and fish generators, so the three
 * scripts can never disagree about the CLI.
 */
import { Help, type Command, type Option } from 'commander';
import { KNOWN_TASK_STATUSES } from '../api/schemas.js';
import { AUTH_SCHEMES, OUTPUT_FORMATS, READABLE_NAMES, SETTING_NAMES } from '../store/setting-names.js';

/** What to offer for a flag's value or a positional argument. */
export type ValueHint =
  /** Free text: nothing to suggest. */
  | { kind: 'none' }
  | { kind: 'choices'; values: readonly string[] }
  | { kind: 'file' }
  /** Service names from the local completion cache (`taskctl __complete services`). */
  | { kind: 'services' }
  /** Recent task ids from the local completion cache (`taskctl __complete tasks`). */
  | { kind: 'tasks' }
  /** This machine's job ids (`taskctl __complete jobs`, read from the state directory), or a journal file. */
  | { kind: 'jobs' }
  /** `--report`: `github`, or `junit=` followed by a file. */
  | { kind: 'report' }
  /** Choices that depend on the first positional argument (`config set output <TAB>`); nothing for other values. */
  | { kind: 'by-first'; choices: Readonly<Record<string, readonly string[]>> };

export interface OptionModel {
  /** Short and long spellings, e.g. `['-o', '--output']`. */
  flags: string[];
  description: string;
  /** Undefined for a boolean flag; what to complete for a flag that takes a value. */
  value?: ValueHint;
}

interface ArgumentModel {
  name: string;
  variadic: boolean;
  hint: ValueHint;
}

export interface CommandModel {
  /** Canonical names from the root, e.g. `['webhook', 'simulate']`; empty for the root. */
  path: string[];
  name: string;
  aliases: string[];
  description: string;
  /** This command's own flags (the root's are in `CompletionModel.globals`). */
  options: OptionModel[];
  args: ArgumentModel[];
  subcommands: CommandModel[];
}

export interface CompletionModel {
  program: string;
  /** The root's flags: accepted before and after any subcommand (commander's default). */
  globals: OptionModel[];
  /** Flags only the root itself accepts (`--version`). */
  rootOnly: OptionModel[];
  root: CommandModel;
}

const NONE: ValueHint = { kind: 'none' };

/** Values commander cannot know: flags that take files, task statuses, service names, reports. Keyed by long flag. */
const OPTION_HINTS: Readonly<Record<string, ValueHint>> = {
  '--file': { kind: 'file' },
  '--api-key-file': { kind: 'file' },
  '--state': { kind: 'file' },
  '--input': { kind: 'file' },
  '--job': { kind: 'jobs' },
  '--ignore-job': { kind: 'jobs' },
  '--status': { kind: 'choices', values: KNOWN_TASK_STATUSES },
  '--service': { kind: 'services' },
  '--report': { kind: 'report' },
};

export type ArgumentHints = Readonly<Record<string, readonly ValueHint[]>>;

/** taskctl's positional arguments by command path. Every key must name a command (checked when the model is built). */
const ARGUMENT_HINTS: ArgumentHints = {
  create: [{ kind: 'services' }],
  show: [{ kind: 'tasks' }],
  diff: [{ kind: 'file' }, { kind: 'file' }],
  resume: [{ kind: 'jobs' }],
  wait: [{ kind: 'tasks' }],
  watch: [{ kind: 'tasks' }],
  'webhook simulate': [{ kind: 'tasks' }],
  'config get': [{ kind: 'choices', values: READABLE_NAMES }],
  'config set': [
    { kind: 'choices', values: SETTING_NAMES },
    { kind: 'by-first', choices: { output: OUTPUT_FORMATS, 'auth-scheme': AUTH_SCHEMES } },
  ],
  'config unset': [{ kind: 'choices', values: SETTING_NAMES }],
};

/** Options commander adds to the root only. */
const ROOT_ONLY_FLAGS = new Set(['--version']);

function optionModel(option: Option): OptionModel {
  const flags = [option.short, option.long].filter((flag): flag is string => flag !== undefined);
  const takesValue = option.required || option.optional;
  const model: OptionModel = { flags, description: option.description };
  if (takesValue) {
    model.value = option.argChoices
      ? { kind: 'choices', values: [...option.argChoices] }
      : (OPTION_HINTS[option.long ?? ''] ?? NONE);
  }
  return model;
}

interface Walk {
  help: Help;
  hints: ArgumentHints;
  /** Hint keys not matched by a command yet. */
  unused: Set<string>;
}

function commandModel(walk: Walk, command: Command, path: string[], parent: Command | undefined): CommandModel {
  const { help, hints: allHints, unused } = walk;
  const key = path.join(' ');
  const hints = allHints[key];
  unused.delete(key);
  // Commander's implicit `help [command]` (not among the parent's own commands) completes its siblings' names.
  const isHelp = parent !== undefined && command.name() === 'help' && !parent.commands.includes(command);
  const siblings = isHelp
    ? parent.commands.filter((c) => c !== command && c.name() !== 'help' && help.visibleCommands(parent).includes(c))
    : [];
  const args: ArgumentModel[] = isHelp
    ? [{ name: 'command', variadic: false, hint: { kind: 'choices', values: siblings.map((c) => c.name()) } }]
    : command.registeredArguments.map((argument, index) => ({
        name: argument.name(),
        variadic: argument.variadic,
        hint: argument.argChoices ? { kind: 'choices', values: [...argument.argChoices] } : (hints?.[index] ?? NONE),
      }));
  const children = help.visibleCommands(command);
  return {
    path,
    name: command.name(),
    aliases: command.aliases(),
    description: command.description(),
    options: path.length === 0 ? [] : help.visibleOptions(command).map(optionModel),
    args,
    subcommands: children.map((child) => commandModel(walk, child, [...path, child.name()], command)),
  };
}

/** Walks the tree from `program`; hidden commands and options are left out. */
export function buildCompletionModel(program: Command, hints: ArgumentHints = ARGUMENT_HINTS): CompletionModel {
  const help = program.createHelp();
  const unused = new Set(Object.keys(hints));
  const root = commandModel({ help, hints, unused }, program, [], undefined);
  if (unused.size > 0) throw new Error(`completion hints name commands that do not exist: ${[...unused].join(', ')}`);
  const rootOptions = help.visibleOptions(program).map(optionModel);
  return {
    program: program.name(),
    globals: rootOptions.filter((o) => !o.flags.some((flag) => ROOT_ONLY_FLAGS.has(flag))),
    rootOnly: rootOptions.filter((o) => o.flags.some((flag) => ROOT_ONLY_FLAGS.has(flag))),
    root,
  };
}

/** Every command, depth first, root first. */
export function allCommands(model: CompletionModel): CommandModel[] {
  const out: CommandModel[] = [];
  const visit = (command: CommandModel) => {
    out.push(command);
    command.subcommands.forEach(visit);
  };
  visit(model.root);
  return out;
}

/** The options a command accepts: its own, then the globals (and `--version` at the root), each flag once. */
export function optionsOf(model: CompletionModel, command: CommandModel): OptionModel[] {
  const all =
    command.path.length === 0 ? [...model.globals, ...model.rootOnly] : [...command.options, ...model.globals];
  const seen = new Set<string>();
  return all.filter((option) => {
    if (option.flags.some((flag) => seen.has(flag))) return false;
    option.flags.forEach((flag) => seen.add(flag));
    return true;
  });
}

/** A description on one line: whitespace runs (newlines included) become one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

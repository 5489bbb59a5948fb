/** Every error names the next step; a usage error without advice of its own points at the command's help. */
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { createMemoryIO } from '../../src/output/memory-io.js';
import { runTaskctl } from './commands/run-in-process.js';

describe('usage errors name the next step', () => {
  it.each([
    [['create'], /needs its <service> argument\nRun `taskctl create --help` for usage and examples\./],
    [['create', 'x', '--chunk-size', '0', 'a.com'], /at least 1\.\nRun `taskctl create --help` for usage/],
    [['config', 'set'], /needs its <key> argument\nRun `taskctl config set --help` for usage/],
    [['frob'], /has no command "frob"\nRun `taskctl --help` for usage and examples\./],
    [['wait', '1', '2', '-'], /not both\nRun `taskctl wait --help` for usage and examples\./],
  ])('taskctl %j', async (argv, expected) => {
    const result = await runTaskctl(argv, { stdin: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(expected);
  });

  it('an error with advice of its own keeps it (no second hint)', async () => {
    const result = await runTaskctl(['balance'], { env: { TASKCTL_BASE_URL: undefined } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no API base URL configured\nRun `taskctl auth login --base-url URL`/);
    expect(result.stderr).not.toMatch(/for usage and examples/);
  });
});

/** Commander's refusals read like every other usage error: taskctl's words, exit 2, the next step. */
describe("commander's refusals in taskctl's words", () => {
  it.each([
    [['list', '--limt', '5'], 'taskctl list has no flag --limt (did you mean --limit?)', 'taskctl list'],
    [['--frob', 'list'], 'taskctl has no flag --frob', 'taskctl'],
    [['crate'], 'taskctl has no command "crate" (did you mean "create"?)', 'taskctl'],
    // `ls` is `list` by another name: one command, suggested once, by its name.
    [['lst'], 'taskctl has no command "lst" (did you mean "list"?)', 'taskctl'],
    [['config', 'sett'], 'taskctl config has no command "sett" (did you mean "set"?)', 'taskctl config'],
    [['list', '--status'], '--status needs a value: --status <status>', 'taskctl list'],
    [['-o', 'yaml', 'list'], '--output "yaml": should be one of table, tsv, csv, json or ndjson', 'taskctl'],
    [
      ['wait', '1', '--timeout', 'abc'],
      '--timeout "abc": expected a duration such as 500ms, 30s, 5m, 1h, 1h30m or plain seconds.',
      'taskctl wait',
    ],
    [['balance', 'extra'], 'taskctl balance takes no arguments (1 given)', 'taskctl balance'],
    [['create'], 'taskctl create needs its <service> argument', 'taskctl create'],
    [['completion', 'powershell'], '<shell> "powershell": should be one of bash, zsh or fish', 'taskctl completion'],
    [
      ['config', 'set', 'request-timeout', '-5s'],
      'taskctl config set has no flag -5s (a value that starts with "-" goes after --: taskctl config set … -- -5s)',
      'taskctl config set',
    ],
    [['-q', 'list', '--limt', '5'], 'taskctl list has no flag --limt (did you mean --limit?)', 'taskctl list'],
    [['-o', 'json', 'list', '--limt', '5'], 'taskctl list has no flag --limt (did you mean --limit?)', 'taskctl list'],
    // `help NAME` for a name that is no command: the same words as the name typed alone, never the whole help.
    [['list', '--all=yes'], '--all takes no value (--all=yes given)', 'taskctl list'],
    [['--json=1', 'list'], '--json takes no value (--json=1 given)', 'taskctl'],
    [['list', '--help=3'], '--help takes no value (--help=3 given)', 'taskctl list'],
    [['list', '--no-such=3'], 'taskctl list has no flag --no-such', 'taskctl list'],
    [['help', 'nosuch'], 'taskctl has no command "nosuch"', 'taskctl'],
    [['help', 'crate'], 'taskctl has no command "crate" (did you mean "create"?)', 'taskctl'],
    [['config', 'help', 'sett'], 'taskctl config has no command "sett" (did you mean "set"?)', 'taskctl config'],
  ])('taskctl %j', async (argv, words, command) => {
    const result = await runTaskctl(argv, { stdin: '' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`error: ${words}\nRun \`${command} --help\` for usage and examples.\n`);
  });
});

/**
 * Every refusal commander can make (the codes of its command.js) that taskctl can meet is said in taskctl's words
 * above: unknownOption, unknownCommand, optionMissingArgument, invalidArgument (a flag's value, an argument's),
 * excessArguments, missingArgument. Help shown (`commander.help`) is exit 0 when asked for, 2 when shown for a command
 * that needs a subcommand; the other codes come from features the tree does not use, held here.
 */
describe("commander's other codes", () => {
  it.each([[['help', 'config']], [['config', 'help']], [['help', 'config', 'set']], [['config', 'help', 'set']]])(
    'taskctl %j prints the help asked for with exit 0',
    async (argv) => {
      const result = await runTaskctl(argv, { stdin: '' });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Usage: taskctl config/);
      expect(result.stderr).toBe('');
    },
  );

  it('a command typed without its subcommand shows its help on stderr, exit 2', async () => {
    const result = await runTaskctl(['config'], { stdin: '' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Usage: taskctl config/);
  });

  it('no flag is mandatory, conflicts with another or is read from the environment by commander', () => {
    // missingMandatoryOptionValue, conflictingOption and an option's env value refused (invalidArgument): a flag
    // using one of them needs its words in commanderWords (src/program.ts) and a row above.
    const program = buildProgram(createMemoryIO().io, async () => {});
    const options = (command: Command): Option[] => [
      ...command.options,
      ...command.commands.flatMap((sub) => options(sub)),
    ];
    const all = options(program);
    expect(all.length).toBeGreaterThan(50);
    // conflictsWith is commander's own field, not in its types.
    const conflicts = (option: Option) => (option as Option & { conflictsWith: string[] }).conflictsWith.length > 0;
    expect(all.filter((option) => option.mandatory || conflicts(option) || option.envVar)).toEqual([]);
  });
});

/** Every error names the next step; a usage error without advice of its own points at the command's help. */
import { describe, expect, it } from 'vitest';
import { runTaskctl } from './commands/harness.js';

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
    [['config', 'sett'], 'taskctl config has no command "sett" (did you mean "set"?)', 'taskctl config'],
    [['list', '--status'], '--status needs a value: --status <status>', 'taskctl list'],
    [['-o', 'yaml', 'list'], '--output "yaml": should be one of table, tsv, csv, json or ndjson', 'taskctl'],
    [
      ['wait', '1', '--timeout', 'abc'],
      '--timeout "abc": expected a duration such as 500ms, 30s, 5m, 1h or plain seconds.',
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

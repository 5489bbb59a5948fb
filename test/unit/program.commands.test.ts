/**
 * main.ts builds the commander tree for the command typed only (start-up): the same command with the same
 * flags and help, without building the other fifteen. When the command is not certain, every command is there.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createMemoryIO } from '../../src/output/memory-io.js';
import { buildProgram } from '../../src/program.js';

const build = (argv?: string[]): Command => buildProgram(createMemoryIO().io, () => Promise.resolve(), argv);
const names = (program: Command): string[] => program.commands.map((c) => c.name());
const all = names(build());

/** Every command's help text, by its path (`config set`). */
function helpTexts(command: Command, path = ''): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const sub of command.commands) {
    const subPath = `${path} ${sub.name()}`.trim();
    texts[subPath] = sub.helpInformation();
    Object.assign(texts, helpTexts(sub, subPath));
  }
  return texts;
}

describe('the commander tree of one run', () => {
  it.each([
    [['balance'], ['balance']],
    [['-o', 'json', '--profile', 'x', '--api-key-file', '-', '--no-color', 'balance'], ['balance']],
    [['--output=json', 'ls', '--status', 'failed'], ['list']],
    [['get', '12'], ['show']],
    [['config', 'set', 'output', 'json'], ['config']],
  ])('%j registers %j only', (argv, expected) => {
    expect(names(build(argv))).toEqual(expected);
  });

  it.each([
    [[]],
    [['balanc']],
    [['help', 'balance']],
    [['--help', 'balance']],
    [['completion', 'bash']],
    [['__complete', 'show', '']],
    [['-qv', 'balance']],
    [['--bogus', 'balance']],
    [['--', 'balance']],
  ])('%j registers every command', (argv) => {
    expect(names(build(argv))).toEqual(all);
  });

  it('gives each command the same flags and help as the whole tree does', () => {
    const whole = helpTexts(build());
    for (const name of all) {
      const alone = helpTexts(build([name]));
      for (const [path, text] of Object.entries(alone)) expect({ path, text }).toEqual({ path, text: whole[path] });
    }
  });
});

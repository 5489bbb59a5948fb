import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { completionScript, SHELLS } from '../../../src/completion/index.js';
import { allCommands, buildCompletionModel, optionsOf } from '../../../src/completion/model.js';
import { createMemoryIO } from '../../../src/output/memory-io.js';
import { buildProgram } from '../../../src/program.js';

const program = () => buildProgram(createMemoryIO().io, async () => {});

describe('checked-in completion scripts', () => {
  it.each(SHELLS)(
    'completions/taskctl.%s is what the command tree generates (run `npm run completions` after changing commands)',
    (shell) => {
      const committed = readFileSync(new URL(`../../../completions/taskctl.${shell}`, import.meta.url), 'utf8');
      expect(committed).toBe(completionScript(program(), shell));
    },
  );
});

describe('completion model', () => {
  const model = buildCompletionModel(program());
  const byPath = new Map(allCommands(model).map((command) => [command.path.join(' '), command]));

  it('has every visible command of the tree, with its aliases, and no hidden one', () => {
    const expected: string[] = [];
    const walk = (command: Command, path: string[]) => {
      for (const child of command.commands) {
        if ((child as unknown as { _hidden: boolean })._hidden) continue;
        expected.push([...path, child.name()].join(' '));
        walk(child, [...path, child.name()]);
      }
    };
    walk(program(), []);
    for (const path of expected) expect(byPath.has(path), path).toBe(true);
    expect(byPath.has('__complete')).toBe(false);
    expect(byPath.get('list')?.aliases).toEqual(['ls']);
    expect(byPath.get('show')?.aliases).toEqual(['get']);
  });

  it('takes flag values from Option.choices, and hints for files, statuses, services and reports', () => {
    const flag = (path: string, name: string) => {
      const command = byPath.get(path)!;
      return optionsOf(model, command).find((option) => option.flags.includes(name));
    };
    expect(flag('', '-o')?.value).toEqual({ kind: 'choices', values: ['table', 'tsv', 'csv', 'json', 'ndjson'] });
    expect(flag('webhook simulate', '--event')?.value).toEqual({
      kind: 'choices',
      values: ['processing', 'completed', 'failed'],
    });
    expect(flag('list', '--status')?.value).toEqual({
      kind: 'choices',
      values: ['pending', 'processing', 'completed', 'failed'],
    });
    expect(flag('list', '--service')?.value).toEqual({ kind: 'services' });
    expect(flag('create', '-f')?.value).toEqual({ kind: 'file' });
    expect(flag('create', '--report')?.value).toEqual({ kind: 'report' });
    expect(flag('wait', '--report')?.value).toEqual({ kind: 'report' });
    expect(flag('show', '--report')?.value).toEqual({ kind: 'report' });
    // Boolean flags take no value, so `--wait create` is not read as a flag and its value.
    expect(flag('create', '--wait')?.value).toBeUndefined();
    // Global flags are accepted under every command, --version only at the root.
    expect(flag('webhook listen', '--profile')).toBeDefined();
    expect(flag('create', '--version')).toBeUndefined();
    expect(flag('', '--version')).toBeDefined();
  });

  it('completes services for create, recent task ids for show/wait/watch/webhook simulate, shells for completion', () => {
    expect(byPath.get('create')?.args[0]?.hint).toEqual({ kind: 'services' });
    for (const path of ['show', 'wait', 'watch', 'webhook simulate'])
      expect(byPath.get(path)?.args[0]?.hint, path).toEqual({ kind: 'tasks' });
    expect(byPath.get('wait')?.args[0]?.variadic).toBe(true);
    expect(byPath.get('completion')?.args[0]?.hint).toEqual({ kind: 'choices', values: ['bash', 'zsh', 'fish'] });
    expect(byPath.get('help')?.args[0]?.hint).toMatchObject({
      kind: 'choices',
      values: expect.arrayContaining(['create', 'webhook']),
    });
  });

  it('offer task ids in the order taskctl gives them (newest first), where the shell can keep an order', () => {
    const bash = completionScript(program(), 'bash');
    expect(bash).toMatch(/^ {4}tasks\)\n {6}compopt -o nosort 2>\/dev\/null\n/m);
    expect(completionScript(program(), 'zsh')).toMatch(/tasks\) .*_describe -V -t tasks 'task' found/);
    expect(completionScript(program(), 'fish')).toMatch(/ -x -k -a '\(__taskctl_dynamic tasks\)'/);
  });

  it('refuses a hint for a command that no longer exists, so a rename cannot silently drop completions', () => {
    const tree = new Command('taskctl');
    tree.command('show').argument('<id>');
    expect(() => buildCompletionModel(tree)).toThrow(/hints name commands that do not exist: create/);
  });
});

describe('generated scripts', () => {
  const tree = new Command('demo');
  tree.addOption(new Option('-o, --output <format>', "it's quoted").choices(['a', 'b']));
  tree.command('go').description('say "hi" | it\'s $HOME `x`').option('--file <path>', 'a file');

  it('quote descriptions for each shell', () => {
    expect(completionScript(tree, 'zsh', {})).toContain(`'go:say "hi" | it'\\''s $HOME \`x\`'`);
    expect(completionScript(tree, 'fish', {})).toContain(`-d 'say "hi" | it\\'s $HOME \`x\`'`);
  });

  it('use the program name for their functions and registration', () => {
    expect(completionScript(tree, 'bash', {})).toMatch(/\ncomplete -F _demo demo\n$/);
    expect(completionScript(tree, 'zsh', {}).startsWith('#compdef demo\n')).toBe(true);
    expect(completionScript(tree, 'fish', {})).toContain('complete -c demo -f\n');
  });
});

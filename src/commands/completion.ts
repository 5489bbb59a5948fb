import { Argument, type Command } from 'commander';
import { DYNAMIC_KINDS, SHELLS, type DynamicKind, type Shell } from '../completion/shells.js';
import { examples, type RunAction } from './help-text.js';

export function registerCompletion(program: Command, run: RunAction): void {
  program
    .command('completion')
    .description('print the shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'after',
      examples([
        'mkdir -p ~/.local/share/bash-completion/completions',
        'taskctl completion bash > ~/.local/share/bash-completion/completions/taskctl',
        'mkdir -p ~/.zfunc',
        'taskctl completion zsh > ~/.zfunc/_taskctl',
        'fpath=(~/.zfunc $fpath)   # in ~/.zshrc, before compinit; then a new shell',
        'mkdir -p ~/.config/fish/completions',
        'taskctl completion fish > ~/.config/fish/completions/taskctl.fish',
        'source <(taskctl completion bash)',
      ]) +
        '\nService names and task ids are completed from a local cache that `services`, `list`, `show`, `create` and `wait` refresh.\n',
    )
    .action((shell: Shell, _options, command: Command) =>
      run(command, async (ctx) => (await import('../core/completion.js')).runCompletion(ctx, command, shell)),
    );

  program
    .command('__complete', { hidden: true })
    .description('print completion values from the local cache, one a line (used by the completion scripts)')
    .addArgument(new Argument('<kind>').choices(DYNAMIC_KINDS))
    .action((kind: DynamicKind, _options, command: Command) =>
      run(command, async (ctx) => (await import('../core/completion.js')).runDynamicCompletion(ctx, kind)),
    );
}

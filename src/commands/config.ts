import type { Command } from 'commander';
import { READABLE_NAMES, SETTING_DESCRIPTIONS, SETTING_NAMES } from '../store/setting-names.js';
import { examples, type RunAction } from './help-text.js';

/** The settings' column in `config --help`: the longest name and two spaces, so every description starts aligned. */
const NAME_WIDTH = Math.max(...SETTING_NAMES.map((name) => name.length)) + 2;

export function registerConfig(program: Command, run: RunAction): void {
  const config = program
    .command('config')
    .description('read and write settings in the config file (per profile)')
    .addHelpText(
      'after',
      `\nSettings:\n${SETTING_NAMES.map((name) => `  ${name.padEnd(NAME_WIDTH)}${SETTING_DESCRIPTIONS[name]}`).join('\n')}\n${examples(
        [
          'taskctl config list',
          'taskctl config set output json',
          'taskctl config get base-url',
          'taskctl --profile staging config unset request-timeout',
        ],
      )}`,
    );
  config
    .command('get')
    .description('print the effective value of a setting, its default when nothing sets it')
    .argument('<key>', READABLE_NAMES.join(' | '))
    .addHelpText('after', examples(['taskctl config get base-url', 'taskctl config get request-timeout']))
    .action((key: string, _options, command: Command) =>
      run(command, async (ctx) => (await import('../core/config.js')).runConfigGet(ctx, key)),
    );
  config
    .command('set')
    .description('store a setting in the profile')
    .argument('<key>', SETTING_NAMES.join(' | '))
    .argument('<value>')
    .addHelpText(
      'after',
      examples([
        'taskctl config set output json',
        'taskctl config set confirm-above 5000',
        'taskctl --profile ci config set request-timeout 2m',
      ]),
    )
    .action((key: string, value: string, _options, command: Command) =>
      run(command, async (ctx) => (await import('../core/config.js')).runConfigSet(ctx, key, value)),
    );
  config
    .command('unset')
    .description('remove a setting from the profile')
    .argument('<key>', SETTING_NAMES.join(' | '))
    .addHelpText('after', examples(['taskctl config unset output']))
    .action((key: string, _options, command: Command) =>
      run(command, async (ctx) => (await import('../core/config.js')).runConfigUnset(ctx, key)),
    );
  config
    .command('list')
    .description('list every setting with its effective value and where it comes from')
    .addHelpText(
      'after',
      examples(['taskctl config list', 'taskctl --profile staging config list -o json', 'taskctl config list -q']) +
        '\n-q prints the keys something sets (a flag, the environment, the profile), one a line.\n',
    )
    .action((_options, command: Command) =>
      run(command, async (ctx) => (await import('../core/config.js')).runConfigList(ctx)),
    );
  config
    .command('path')
    .description('print the config file path')
    .addHelpText('after', examples(['taskctl config path']))
    .action((_options, command: Command) =>
      run(command, async (ctx) => (await import('../core/config.js')).runConfigPath(ctx)),
    );
}

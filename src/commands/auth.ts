import type { Command } from 'commander';
import type { LoginOptions } from '../core/auth.js';
import { examples, type RunAction } from './help-text.js';

export function registerAuth(program: Command, run: RunAction): void {
  const auth = program
    .command('auth')
    .description('store, inspect and remove the API key')
    .addHelpText(
      'after',
      examples([
        'taskctl auth login --base-url https://api.example.com',
        'taskctl auth status',
        'taskctl --profile staging auth logout',
      ]),
    );
  auth
    .command('login')
    .description('verify an API key with GET /balance and save it (with the base URL) in the profile')
    .option('--with-key', 'read the key from stdin instead of a hidden prompt')
    .addHelpText(
      'after',
      examples([
        'taskctl auth login --base-url https://api.example.com',
        'echo "$KEY" | taskctl auth login --with-key --base-url https://api.example.com',
        'taskctl --profile staging auth login --base-url https://staging.example.com',
      ]),
    )
    .action((options: LoginOptions, command: Command) =>
      run(command, async (ctx) => (await import('../core/auth.js')).runLogin(ctx, options)),
    );
  auth
    .command('status')
    .description(
      'show where the key comes from (masked), the base URL, whether the key works, and the rate-limit budget',
    )
    .addHelpText(
      'after',
      examples(['taskctl auth status', 'taskctl auth status -o json', 'taskctl auth status -q || taskctl auth login']) +
        '\n-q prints nothing: exit 0 when the key works, 4 when there is none or it is refused, 7 while rate-limited.\n',
    )
    .action((_options, command: Command) =>
      run(command, async (ctx) => (await import('../core/auth.js')).runStatus(ctx)),
    );
  auth
    .command('logout')
    .description("remove the profile's stored API key")
    .addHelpText('after', examples(['taskctl auth logout', 'taskctl --profile staging auth logout']))
    .action((_options, command: Command) =>
      run(command, async (ctx) => (await import('../core/auth.js')).runLogout(ctx)),
    );
}

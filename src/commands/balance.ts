import type { Command } from 'commander';
import type { Context } from '../context.js';
import { examples, type RunAction } from './help-text.js';

export function registerBalance(program: Command, run: RunAction): void {
  program
    .command('balance')
    .description('show the coin balance')
    .addHelpText('after', examples(['taskctl balance', 'taskctl balance -o json | jq .balance']))
    .action((_options, command: Command) => run(command, runBalance));
}

export async function runBalance(ctx: Context): Promise<void> {
  const api = await ctx.api();
  const balance = await api.getBalance();
  ctx.printer.detail(
    [
      ['balance', balance.balance],
      ['currency', balance.currency],
    ],
    balance,
  );
}

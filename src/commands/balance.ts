import type { Command } from 'commander';
import type { Context } from '../context.js';
import { formatCount } from '../output/numbers.js';
import { examples, type RunAction } from './help-text.js';

export function registerBalance(program: Command, run: RunAction): void {
  program
    .command('balance')
    .description('show the coin balance')
    .addHelpText(
      'after',
      examples(['taskctl balance', 'taskctl balance -o json | jq .balance', 'taskctl balance -o tsv | cut -f1']),
    )
    .action((_options, command: Command) => run(command, runBalance));
}

export async function runBalance(ctx: Context): Promise<void> {
  const balance = await ctx.spin('reading the balance', async () => (await ctx.api()).getBalance());
  // One number, one line for a person (`1,234 coins`); machine formats keep the two fields.
  if (ctx.printer.format === 'table') {
    ctx.printer.line(`${formatCount(balance.balance)} ${balance.currency}`);
    return;
  }
  ctx.printer.detail(
    [
      ['balance', balance.balance],
      ['currency', balance.currency],
    ],
    balance,
  );
}

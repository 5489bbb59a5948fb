/** `taskctl balance`: the coin balance, one line for a person, two fields for a script. */
import type { Output, Prompts, Service } from './capabilities.js';
import { formatCount } from '../output/numbers.js';

export async function runBalance(ctx: Output & Prompts & Service): Promise<void> {
  const balance = await ctx.spin('reading the balance', async () => (await ctx.api()).getBalance());
  // -q: the number alone, for `$(taskctl balance -q)`; imported lazily like every other module balance needs rarely.
  if (ctx.globals.quiet === true && (await import('./quiet.js')).idsOnly(ctx.globals)) {
    ctx.printer.line(String(balance.balance));
    return;
  }
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

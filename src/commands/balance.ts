import type { Command } from 'commander';
// Static, not `await import()`: balance is the start-up benchmark's command, and a second chunk would cost a load.
import { runBalance } from '../core/balance.js';
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

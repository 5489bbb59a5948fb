import type { Command } from 'commander';
import type { ServicesOptions } from '../core/services.js';
import { columnName, columnsOption, wideOption } from '../output/columns.js';
import { SERVICE_COLUMNS } from '../output/service-columns.js';
import { examples, type RunAction } from './help-text.js';

export function registerServices(program: Command, run: RunAction): void {
  program
    .command('services')
    .description('list services with their price per item')
    .addOption(columnsOption(SERVICE_COLUMNS.map(columnName)))
    .addOption(wideOption())
    .addHelpText(
      'after',
      examples([
        'taskctl services',
        'taskctl services --wide',
        'taskctl services --columns service,pricing -o tsv',
        'taskctl services -o json | jq -r ".[].service"',
      ]),
    )
    .action((options: ServicesOptions, command: Command) =>
      run(command, async (ctx) => (await import('../core/services.js')).runServices(ctx, options)),
    );
}

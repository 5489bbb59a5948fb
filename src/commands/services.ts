import type { Command } from 'commander';
import type { Service } from '../api/schemas.js';
import type { Context } from '../context.js';
import { columnName, columnsOption, pickColumns, wideOption } from '../output/columns.js';
import type { Column } from '../output/printer.js';
import { examples, type RunAction } from './help-text.js';

/** At a narrow terminal the description is cut first, then CURRENCY and NAME are left out (`--wide` shows all). */
const SERVICE_COLUMNS: Array<Column<Service>> = [
  { header: 'SERVICE', key: 'service', value: (s) => s.service },
  { header: 'NAME', key: 'display_name', value: (s) => s.display_name, truncate: true, optional: 1 },
  { header: 'PRICE', key: 'pricing', value: (s) => s.pricing, align: 'right' },
  { header: 'CURRENCY', key: 'currency', value: (s) => s.currency, optional: 2 },
  { header: 'DESCRIPTION', key: 'description', value: (s) => s.description, truncate: true },
];

export interface ServicesOptions {
  columns?: string[];
  wide?: boolean;
}

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
    .action((options: ServicesOptions, command: Command) => run(command, (ctx) => runServices(ctx, options)));
}

export async function runServices(ctx: Context, options: ServicesOptions = {}): Promise<void> {
  const columns = pickColumns(SERVICE_COLUMNS, options.columns);
  const api = await ctx.api();
  const services = await ctx.spin('reading the services', () => api.listServices());
  ctx.cache.rememberServices(services, api.baseUrl);
  await ctx.printer.list(services, columns, services, { wide: options.wide === true });
}

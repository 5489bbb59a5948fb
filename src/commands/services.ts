import type { Command } from 'commander';
import type { Service } from '../api/schemas.js';
import type { Context } from '../context.js';
import type { Column } from '../output/printer.js';
import { examples, type RunAction } from './help-text.js';

export const SERVICE_COLUMNS: Column<Service>[] = [
  { header: 'SERVICE', key: 'service', value: (s) => s.service },
  { header: 'NAME', key: 'display_name', value: (s) => s.display_name },
  { header: 'PRICE', key: 'pricing', value: (s) => s.pricing, align: 'right' },
  { header: 'CURRENCY', key: 'currency', value: (s) => s.currency },
  { header: 'DESCRIPTION', key: 'description', value: (s) => s.description },
];

export function registerServices(program: Command, run: RunAction): void {
  program
    .command('services')
    .description('list services with their price per item')
    .addHelpText('after', examples(['taskctl services', 'taskctl services -o json | jq -r ".[].service"']))
    .action((_options, command: Command) => run(command, runServices));
}

export async function runServices(ctx: Context): Promise<void> {
  const api = await ctx.api();
  const services = await api.listServices();
  ctx.cache.rememberServices(services, api.baseUrl);
  await ctx.printer.list(services, SERVICE_COLUMNS, services);
}

/** `taskctl services`: the services with their price per item; remembered for completion. */
import type { Output, Prompts, Service, Store } from './capabilities.js';
import { pickColumns } from '../output/columns.js';
import { SERVICE_COLUMNS } from '../output/service-columns.js';
import { idLines, idsOnly } from './quiet.js';

export interface ServicesOptions {
  columns?: string[];
  wide?: boolean;
}

export async function runServices(
  ctx: Output & Prompts & Store & Service,
  options: ServicesOptions = {},
): Promise<void> {
  const columns = pickColumns(SERVICE_COLUMNS, options.columns);
  const api = await ctx.api();
  const services = await ctx.spin('reading the services', () => api.listServices());
  ctx.cache.rememberServices(services, api.baseUrl);
  if (idsOnly(ctx.globals)) {
    idLines(ctx.printer, (service: { service: string }) => service.service).write(services);
    return;
  }
  await ctx.printer.list(services, columns, services, {
    wide: options.wide === true,
    chosen: (options.columns?.length ?? 0) > 0,
  });
}

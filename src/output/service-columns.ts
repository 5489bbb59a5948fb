/** The columns of `taskctl services` (the command names them for --columns; core/services.ts prints them). */
import type { Service } from '../api/schemas.js';
import type { Column } from './printer.js';

/**
 * At a narrow terminal the description is cut first, then CURRENCY and NAME are left out (`--wide` shows all); SERVICE,
 * PRICE and DESCRIPTION stay, or the services stack.
 */
export const SERVICE_COLUMNS: Array<Column<Service>> = [
  { header: 'SERVICE', key: 'service', value: (s) => s.service },
  { header: 'NAME', key: 'display_name', value: (s) => s.display_name, truncate: true, optional: 1 },
  { header: 'PRICE', key: 'pricing', value: (s) => s.pricing, align: 'right' },
  { header: 'CURRENCY', key: 'currency', value: (s) => s.currency, optional: 2 },
  { header: 'DESCRIPTION', key: 'description', value: (s) => s.description, truncate: true },
];

/** Columns shared by every command that prints tasks (`list`, `show`, `create`, `wait`). */
import type { Task } from '../api/schemas.js';
import type { Column } from '../output/printer.js';

export type StatusPainter = (status: string) => string;

export function taskColumns(paint: StatusPainter): Column<Task>[] {
  return [
    { header: 'ID', key: 'id', value: (t) => t.id, align: 'right' },
    { header: 'SERVICE', key: 'service', value: (t) => t.service },
    { header: 'STATUS', key: 'status', value: (t) => t.status, style: (value) => paint(value) },
    { header: 'ITEMS', key: 'total_items', value: (t) => t.total_items, align: 'right' },
    { header: 'COST', key: 'cost', value: (t) => t.cost, align: 'right' },
    { header: 'CREATED', key: 'created_at', value: (t) => t.created_at },
    { header: 'FINISHED', key: 'finished_at', value: (t) => t.completed_at ?? t.failed_at ?? '' },
  ];
}

import { describe, expect, it } from 'vitest';
import { columnName, pickColumns } from '../../../src/output/columns.js';
import type { Column } from '../../../src/output/printer.js';
import { ExitCode } from '../../../src/errors.js';

const columns: Array<Column<{ a: number }>> = [
  { header: 'ID', key: 'id', value: (r) => r.a },
  { header: 'Created At', value: (r) => r.a },
  { header: 'ITEMS', key: 'total_items', value: (r) => r.a },
];

describe('pickColumns', () => {
  it('keeps every column without a choice, else the named ones in the order given', () => {
    expect(pickColumns(columns, undefined)).toEqual(columns);
    expect(pickColumns(columns, ['created_at', 'ID']).map(columnName)).toEqual(['created_at', 'id']);
    expect(pickColumns(columns, ['items']).map(columnName)).toEqual(['total_items']);
  });

  it('refuses an unknown name with exit 2 and the valid names', () => {
    try {
      pickColumns(columns, ['id', 'nope']);
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ exitCode: ExitCode.usage, message: 'unknown column "nope"' });
      expect((error as { hint: string }).hint).toBe('Valid columns: id, created_at, total_items.');
    }
  });
});

/** Invalid items refused (exit 3, nothing sent): the hint's words count them, one item or several. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSandboxWorld, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
let world: World;
beforeEach(async () => {
  world = await startSandboxWorld();
});
afterEach(() => world.close());

it.each([
  [['bad host'], 'Fix it, or pass --skip-invalid to drop it (or --no-validate to send it as written).'],
  [
    ['bad host', 'worse host'],
    'Fix them, or pass --skip-invalid to drop them (or --no-validate to send them as written).',
  ],
])('%j', async (items, hint) => {
  const result = await world.run(['create', S, 'a.com', ...items]);
  expect(result.code).toBe(3);
  expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(hint);
  expect(await world.tasks()).toHaveLength(0);
});

it('a .csv of items with no header row: refused (exit 3), its first item never dropped unseen; the hint, followed, reads them all', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-csv-'));
  try {
    const file = join(dir, 'domains.csv');
    writeFileSync(file, 'a.com\nb.com\n');
    const result = await world.run(['create', S, '-f', file, '--dry-run']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      `${file}:1: the first row is read as the CSV's header, but its first cell, "a.com", is an item`,
    );
    const hint = result.stderr.trimEnd().split('\n').at(-1) ?? '';
    expect(hint).toBe(
      'If the file has no header row, read it one item a line with --format lines; if it has one, name its column with --column.',
    );
    const lines = await world.run(['create', S, '-f', file, '--format', 'lines', '--dry-run', '-o', 'json']);
    expect(lines.code, lines.stderr).toBe(0);
    expect(JSON.parse(lines.stdout)).toMatchObject({ items: 2, tasks: 1 });
    expect(await world.tasks()).toHaveLength(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

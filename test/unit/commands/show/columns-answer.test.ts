/**
 * At any width the item's result outlives STATUS: `show` and `create --wait` keep AVAILABLE and ERROR (the answer) and
 * leave STATUS out first, saying so; where ERROR would get less than about 18 columns (a word a line) the rows stack
 * as cards instead (docs/behaviour.md#column-orders).
 */
import { describe, expect, it } from 'vitest';
import { textWidth } from '../../../../src/output/width.js';
import { sandboxRun } from '../harness.js';

const TERMINAL = { stdoutTTY: true, stderrTTY: true } as const;

describe('column priorities that keep the answer', () => {
  it('show at 50 columns: TARGET, AVAILABLE and ERROR, STATUS hidden, the note before the table', async () => {
    const { run } = await sandboxRun(0);
    await run(['create', 'domain_check_availability', 'example.com', 'fail-example.net', '--wait', '-q']);
    const shown = await run(['show', '1'], { ...TERMINAL, columns: 50 });
    const table = shown.stdout.slice(shown.stdout.indexOf('TARGET'));
    expect(table.split('\n')[0]).toMatch(/^TARGET +AVAILABLE +ERROR$/);
    expect(table).toMatch(/^fail-example\.net +- +Simulated item$/m);
    for (const line of shown.stdout.split('\n')) expect(textWidth(line), line).toBeLessThanOrEqual(49);
    expect(shown.stderr).toMatch(/1 column hidden \(STATUS\)/);
    const wide = await run(['show', '1'], { ...TERMINAL, columns: 120 });
    expect(wide.stdout).toMatch(/^TARGET +STATUS +AVAILABLE +ERROR$/m);
  });

  it('show at 40 columns: cards rather than an ERROR of a word a line', async () => {
    const { run } = await sandboxRun(0);
    await run(['create', 'domain_check_availability', 'example.com', 'fail-example.net', '--wait', '-q']);
    const shown = await run(['show', '1'], { ...TERMINAL, columns: 40 });
    expect(shown.stdout).toMatch(/^AVAILABLE: +true$/m);
    expect(shown.stdout).toMatch(/^ERROR: +Simulated item failure$/m);
    for (const line of shown.stdout.split('\n')) expect(textWidth(line), line).toBeLessThanOrEqual(39);
  });

  it('create --wait at 50 columns keeps the result too', async () => {
    const { run } = await sandboxRun(0);
    const created = await run(
      ['create', 'domain_check_availability', 'example.com', 'fail-example.net', '--wait', '--yes'],
      { ...TERMINAL, columns: 50 },
    );
    expect(created.code).toBe(11);
    expect(created.stdout).toMatch(/^TARGET +AVAILABLE +ERROR$/m);
  });
});

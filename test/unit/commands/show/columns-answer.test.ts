/**
 * Column priorities of item results (docs/behaviour.md#column-orders): `show`, `wait` and `create --wait` keep TARGET,
 * STATUS, the first result field and ERROR longest; the other result fields go first, the last first, and the note
 * names them. A failed item with no error text must still read as failed, so STATUS is never left out: where the kept
 * columns do not fit side by side (ERROR at less than about 18 columns, a word a line), the rows stack as cards.
 */
import { describe, expect, it } from 'vitest';
import { textWidth } from '../../../../src/output/width.js';
import type { RunningSandbox } from '../../../../src/sandbox/index.js';
import { mockApi, runTaskctl, sandboxRun } from '../run-in-process.js';
import { postTask } from '../sandbox-world.js';

const TERMINAL = { stdoutTTY: true, stderrTTY: true } as const;

/** Task 1, one item answered and one failed, made straight on the sandbox (done as it is made): what `show` reads. */
const answered = (sandbox: RunningSandbox) =>
  postTask(sandbox, 'domain_check_availability', ['example.com', 'fail-example.net']);

describe('column priorities that keep the status and the answer', () => {
  it('show at 60 columns: TARGET, STATUS, AVAILABLE and ERROR, nothing hidden', async () => {
    const { run, sandbox } = await sandboxRun(0);
    await answered(sandbox);
    const shown = await run(['show', '1'], { ...TERMINAL, columns: 60 });
    const table = shown.stdout.slice(shown.stdout.indexOf('TARGET'));
    expect(table.split('\n')[0]).toMatch(/^TARGET +STATUS +AVAILABLE +ERROR$/);
    expect(table).toMatch(/^fail-example\.net +failed +- +Simulated item/m);
    for (const line of shown.stdout.split('\n')) expect(textWidth(line), line).toBeLessThanOrEqual(59);
    expect(shown.stderr).not.toMatch(/hidden/);
  });

  it('show at 50 columns: cards with STATUS rather than a table without it', async () => {
    const { run, sandbox } = await sandboxRun(0);
    await answered(sandbox);
    const shown = await run(['show', '1'], { ...TERMINAL, columns: 50 });
    expect(shown.stdout).toMatch(/^STATUS: +failed$/m);
    expect(shown.stdout).toMatch(/^AVAILABLE: +true$/m);
    expect(shown.stderr).not.toMatch(/hidden/);
    for (const line of shown.stdout.split('\n')) expect(textWidth(line), line).toBeLessThanOrEqual(49);
  });

  it('show at 40 columns: cards rather than an ERROR of a word a line', async () => {
    const { run, sandbox } = await sandboxRun(0);
    await answered(sandbox);
    const shown = await run(['show', '1'], { ...TERMINAL, columns: 40 });
    expect(shown.stdout).toMatch(/^AVAILABLE: +true$/m);
    expect(shown.stdout).toMatch(/^ERROR: +Simulated item failure$/m);
    for (const line of shown.stdout.split('\n')) expect(textWidth(line), line).toBeLessThanOrEqual(39);
  });

  it('a failed item with no error text: its STATUS stays, the later result fields go first and are named', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/4', 200, {
      success: true,
      data: {
        id: 4,
        service: 'domain_check_availability',
        status: 'completed',
        total_items: 2,
        cost: 2,
        created_at: '2025-01-15T11:00:00Z',
        items: [
          { target: 'ok.com', status: 'completed', data: { available: true, registrar: 'Tucows', price_usd: 12 } },
          { target: 'gone.com', status: 'failed', data: null, error: null },
        ],
      },
    });
    const shown = await runTaskctl(['show', '4'], { api, ...TERMINAL, columns: 40, env: { NO_COLOR: '1' } });
    const table = shown.stdout.slice(shown.stdout.indexOf('TARGET'));
    expect(table.split('\n')[0]).toMatch(/^TARGET +STATUS +AVAILABLE$/);
    expect(table).toMatch(/^gone\.com +failed +-?$/m);
    expect(shown.stderr.replace(/\s+/g, ' ')).toContain('2 columns hidden (REGISTRAR, PRICE_USD): --wide or -o tsv');
  });

  it('create --wait at 60 columns keeps STATUS and the result', async () => {
    const { run } = await sandboxRun(0);
    const created = await run(
      ['create', 'domain_check_availability', 'example.com', 'fail-example.net', '--wait', '--yes'],
      { ...TERMINAL, columns: 60 },
    );
    expect(created.code).toBe(11);
    expect(created.stdout).toMatch(/^TARGET +STATUS +AVAILABLE +ERROR$/m);
  });
});

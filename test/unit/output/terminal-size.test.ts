/**
 * A terminal's size, the one rule: 0 columns or rows (a pty whose size was never set) is an unknown size, laid out as
 * 80×24, the pager not used; and every reader of a stream's size goes through it (the spinner: output/spinner.test.ts;
 * the live block: output/progress.test.ts; a command's spinner: commands/balance/zero-columns.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { cachedHelp } from '../../../src/boot/help.js';
import { needsPager } from '../../../src/output/pager.js';
import { knownColumns, knownRows, terminalColumns, terminalRows } from '../../../src/output/terminal-size.js';
import { textWidth } from '../../../src/output/width.js';
import { mockApi, runTaskctl } from '../commands/run-in-process.js';

describe('the rule', () => {
  it('0 or nothing is unknown: 80 columns, 24 rows', () => {
    expect([terminalColumns(0), terminalColumns(undefined), terminalColumns(120)]).toEqual([80, 80, 120]);
    expect([terminalRows(0), terminalRows(undefined), terminalRows(50)]).toEqual([24, 24, 50]);
    expect([knownColumns(0), knownColumns(40), knownRows(0), knownRows(30)]).toEqual([undefined, 40, undefined, 30]);
  });

  it('a terminal of unknown height gets no pager (it would wait for keys on a CI pty)', () => {
    expect(needsPager('line\n'.repeat(500), knownRows(0))).toBe(false);
  });

  it("--help on a terminal of unknown width is the build's 80-column text", () => {
    const texts = { width: 80, commands: { '': { text: 'help at 80', wide: false } } };
    expect(cachedHelp(texts, ['--help'], { isTTY: true, columns: 0 })).toBe('help at 80');
  });
});

describe('a table on a terminal of unknown width', () => {
  it('is laid out as at 80 columns', async () => {
    const api = () => {
      const mock = mockApi();
      mock.reply('GET', '/services', 200, {
        success: true,
        data: [
          {
            service: 'domain_check_availability',
            display_name: 'Domain check',
            description: `Is the domain free? ${'Some more words about it. '.repeat(8)}`,
            pricing: 1,
            currency: 'coins',
          },
        ],
        meta: { total: 1, currency: 'coins' },
      });
      return mock;
    };
    const unknown = await runTaskctl(['services'], { api: api(), stdoutTTY: true, stderrTTY: true, columns: 0 });
    const eighty = await runTaskctl(['services'], { api: api(), stdoutTTY: true, stderrTTY: true, columns: 80 });
    expect(unknown.code, unknown.stderr).toBe(0);
    expect(unknown.stdout).toBe(eighty.stdout);
    expect(unknown.stderr).toBe(eighty.stderr);
    expect(Math.max(...unknown.stdout.split('\n').map((line) => textWidth(line)))).toBeLessThan(80);
  });
});

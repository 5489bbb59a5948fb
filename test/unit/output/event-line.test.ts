import { describe, expect, it } from 'vitest';
import { eventLineFormatter, type EventLine } from '../../../src/output/event-line.js';
import { T0 } from '../../clock.js';

/** The line as printed without colour. */
const text = (format: ReturnType<typeof eventLineFormatter>, line: EventLine) =>
  format(line)
    .map((part) => part.text)
    .join('')
    .trimEnd();

const line = (service: string, rest: string, room?: number): EventLine => ({
  at: T0,
  id: 7,
  service,
  status: 'processing',
  rest,
  ...(room === undefined ? {} : { room }),
});

describe('eventLineFormatter', () => {
  it('without a width (a pipe, a file): every service whole, the columns as wide as the widest seen', () => {
    const format = eventLineFormatter();
    expect(text(format, line('domain_check_availability', '5/12, 2 failed', 16))).toBe(
      '2025-01-15T12:00:00Z  task 7       domain_check_availability  processing  5/12, 2 failed',
    );
  });

  it('at 80 columns: the id column gives up its kept room, then the service gives way; the counts keep the room the task may need; every line aligned', () => {
    const format = eventLineFormatter(79);
    const lines = [
      text(format, line('domain_check_availability', '5/12, 2 failed', 16)),
      text(format, line('email_verify', '12/12, 12 failed', 16)),
      text(format, line('domain_whois_history', '1/12', 16)),
    ];
    expect(lines).toEqual([
      '2025-01-15T12:00:00Z  task 7  domain_check_avail…  processing  5/12, 2 failed',
      '2025-01-15T12:00:00Z  task 7  email_verify         processing  12/12, 12 failed',
      '2025-01-15T12:00:00Z  task 7  domain_whois_histo…  processing  1/12',
    ]);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(79);
  });

  it('a service that fits is left whole, even at a narrow width, in the column kept for longer ones', () => {
    const format = eventLineFormatter(79);
    expect(text(format, line('email_verify', '1/2', 3))).toBe(
      '2025-01-15T12:00:00Z  task 7  email_verify         processing  1/2',
    );
  });

  it('too narrow for the fixed columns and a readable service (60, 40): the service whole, the printer wraps the line', () => {
    for (const width of [59, 39]) {
      const format = eventLineFormatter(width);
      expect(text(format, line('domain_check_availability', '5/12, 2 failed', 16))).toContain(
        'domain_check_availability  processing',
      );
    }
  });

  /** Where the status column starts on each line. */
  const statusAt = (lines: string[]) => lines.map((l) => l.search(/ (processing|completed)/));

  it('at 80 columns: a task with more items coming later never narrows the service column (lines above and below align)', () => {
    const format = eventLineFormatter(79);
    const lines = [
      text(format, line('domain_check_availability', '1/2', 13)),
      text(format, line('domain_check_availability', '10/150', 19)),
      text(format, line('domain_whois_history', '2/2', 13)),
      text(format, line('email_verify', '9,000/9,999', 25)),
    ];
    expect(new Set(statusAt(lines)).size).toBe(1);
    expect(lines[0]).toBe('2025-01-15T12:00:00Z  task 7  domain_check_avail…  processing  1/2');
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(79);
  });

  it('at 80 columns: the room kept from the first line is that of a plausible count, whatever the first task', () => {
    const small = eventLineFormatter(79);
    const big = eventLineFormatter(79);
    expect(statusAt([text(small, line('domain_check_availability', '1/1', 10))])).toEqual(
      statusAt([text(big, line('domain_check_availability', '1/12', 16))]),
    );
  });

  it('at 120 columns: the service column is kept from the first line for the longest names (a longer one comes later)', () => {
    const format = eventLineFormatter(119);
    const lines = [
      text(format, line('email_verify', '1/1', 10)),
      text(format, line('domain_check_availability', '5/12, 2 failed', 16)),
      text(format, line('email_verify', '1,000/1,000, 1,000 failed', 25)),
    ];
    expect(new Set(statusAt(lines)).size).toBe(1);
    expect(lines[1]).toBe('2025-01-15T12:00:00Z  task 7       domain_check_availability  processing  5/12, 2 failed');
  });

  it('at 80 columns: a first task of 100 items (counts up to 19 columns) still leaves the service 16, as listen and watch print', () => {
    const format = eventLineFormatter(79);
    const first = text(format, line('domain_check_availability', '5/100', 19));
    expect(first).toBe('2025-01-15T12:00:00Z  task 7  domain_check_av…  processing  5/100');
    expect(text(format, line('domain_whois_history', '100/100, 100 failed', 19))).toContain(
      'domain_whois_hi…  processing',
    );
  });

  it('at 78 columns, the id column narrowed to the ids: the counts keep 19, the service 14', () => {
    const format = eventLineFormatter(77);
    const first = text(format, line('domain_check_availability', '5/100', 19));
    expect(first).toBe('2025-01-15T12:00:00Z  task 7  domain_check_…  processing  5/100');
  });

  it('at 80 columns, ids of two digits (the sandbox, a new account): the id column as wide as they are, the service cut less', () => {
    const format = eventLineFormatter(79);
    const lines = [
      text(format, { ...line('domain_check_availability', '5/41', 13), id: 23 }),
      text(format, { ...line('domain_check_availability', '0/2, 2 failed', 13), id: 24, status: 'failed' }),
    ];
    expect(lines).toEqual([
      '2025-01-15T12:00:00Z  task 23  domain_check_avai…  processing  5/41',
      '2025-01-15T12:00:00Z  task 24  domain_check_avai…  failed      0/2, 2 failed',
    ]);
    // Off a terminal, or where the whole line fits, the room for six digits is kept (no column moves for `task 100`).
    expect(text(eventLineFormatter(), { ...line('email_verify', '1/1', 10), id: 23 })).toContain(
      'task 23      email_verify',
    );
    expect(text(eventLineFormatter(119), { ...line('email_verify', '1/1', 10), id: 23 })).toContain(
      'task 23      email_verify',
    );
  });

  /** The line as the printer shows it at a terminal: a `lineBreak` part starts a line indented two columns. */
  const shown = (format: ReturnType<typeof eventLineFormatter>, at: EventLine) =>
    format(at)
      .map((part) => (part.lineBreak === true ? '\n  ' : part.text))
      .join('')
      .trimEnd();

  it('at 80 columns, ids of ten digits and more: the service gives way further (down to 8), so the counts stay on the line', () => {
    for (const id of [1_234_567_890, 1_234_567_890_123]) {
      const format = eventLineFormatter(79);
      const lines = [
        shown(format, { ...line('domain_check_availability', '0/1', 13), id }),
        shown(format, { ...line('email_verify', '1/1, 1 failed', 13), id, status: 'completed' }),
      ];
      expect(lines[0]).toMatch(new RegExp(`^\\S+Z  task ${id}  domain_\\S*…  processing  0/1$`));
      expect(lines[1]).toMatch(new RegExp(`^\\S+Z  task ${id}  email_v\\S*\\s+completed {3}1/1, 1 failed$`));
      for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(79);
    }
  });

  it('too narrow for the line (50 columns): broken after the id, the rest aligned under it, the counts whole', () => {
    const format = eventLineFormatter(49);
    const lines = [
      shown(format, { ...line('domain_check_availability', '0/1', 13), id: 1_234_567_890 }),
      shown(format, { ...line('email_verify', '1/1, 1 failed', 13), id: 1_234_567_891 }),
    ];
    expect(lines).toEqual([
      '2025-01-15T12:00:00Z  task 1234567890\n  domain_check_availa…  processing  0/1',
      '2025-01-15T12:00:00Z  task 1234567891\n  email_verify          processing  1/1, 1 failed',
    ]);
    for (const l of lines.flatMap((both) => both.split('\n'))) expect(l.length, l).toBeLessThanOrEqual(49);
  });

  it('at 80 columns, counts wider than their room (`1/5, 4 not listed`): wrapped between two counts, the rest under the first, never inside one', () => {
    const format = eventLineFormatter(79);
    const first = shown(format, { ...line('domain_check_availability', '0/5', 13) });
    const wide = shown(format, { ...line('domain_check_availability', '1/5, 4 not listed', 13), status: 'completed' });
    const column = first.indexOf('0/5');
    expect(wide).toBe(
      `2025-01-15T12:00:00Z  task 7  domain_check_avail…  completed   1/5,\n${' '.repeat(column)}4 not listed`,
    );
    const wider = shown(format, {
      ...line('email_verify', '100/120, 1 failed, 19 not listed', 21),
      status: 'completed',
    });
    expect(wider.split('\n').map((l) => l.slice(column))).toEqual(['100/120,', '1 failed,', '19 not listed']);
    for (const l of [first, wide, wider].flatMap((all) => all.split('\n'))) expect(l.length, l).toBeLessThanOrEqual(79);
  });

  it('counts that fit are never broken, and a rest that is not counts (no room given) is left to the printer', () => {
    expect(shown(eventLineFormatter(119), line('email_verify', '1/5, 4 not listed', 13))).toBe(
      `2025-01-15T12:00:00Z  task 7       ${'email_verify'.padEnd(25)}  processing  1/5, 4 not listed`,
    );
    const format = eventLineFormatter(79);
    const body = '{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}';
    expect(shown(format, line('email_verify', body))).not.toContain('\n');
  });

  it('given as a function, the width is read at each line, not when the formatter is made (a resized terminal)', () => {
    let columns = 39;
    const format = eventLineFormatter(() => columns);
    columns = 119;
    // At 120 columns the service column keeps room for the longest names from the first line.
    expect(text(format, line('email_verify', '1/1', 10))).toBe(
      `2025-01-15T12:00:00Z  task 7       ${'email_verify'.padEnd(25)}  processing  1/1`,
    );
  });
});

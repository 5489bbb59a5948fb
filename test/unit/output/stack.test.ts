/** `Label:  value` cards fitted to a terminal's width: detail screens and the rows of a table too wide to draw. */
import { describe, expect, it } from 'vitest';
import { card, cards } from '../../../src/output/stack.js';
import { textWidth } from '../../../src/output/width.js';

const widest = (text: string) =>
  Math.max(
    ...text
      .trimEnd()
      .split('\n')
      .map((line) => textWidth(line)),
  );

describe('card', () => {
  it('aligns values two columns after the widest label', () => {
    expect(
      card(
        [
          { label: 'ID', value: '1' },
          { label: 'Service', value: 'email_verify' },
        ],
        80,
      ),
    ).toBe('ID:       1\nService:  email_verify\n');
  });

  it('wraps a long value under its first line, at spaces, never past the width', () => {
    const text = card([{ label: 'ERROR', value: 'Simulated item failure (item starts with "fail-")' }], 30);
    expect(text).toBe('ERROR:  Simulated item failure\n        (item starts with\n        "fail-")\n');
    expect(widest(text)).toBeLessThanOrEqual(30);
  });

  it('keeps a tail whole: beside the last line when it fits, else on a line of its own', () => {
    const at = (width: number) => card([{ label: 'Created', value: '2009-02-15T10:00:00Z', tail: '(8m ago)' }], width);
    expect(at(80)).toBe('Created:  2009-02-15T10:00:00Z (8m ago)\n');
    expect(at(35)).toBe('Created:  2009-02-15T10:00:00Z\n          (8m ago)\n');
  });

  it('never breaks a word: one wider than the value column is whole on a line of its own (a path, a URL, a target)', () => {
    const url = `https://example.com/${'a'.repeat(60)}`;
    const text = card([{ label: 'URL', value: `see ${url} for more` }], 40);
    expect(text).toBe(`URL:\n  see\n  ${url}\n  for more\n`);
    const path = `/tmp/home/state/jobs/j-${'x'.repeat(30)}.jsonl`;
    expect(
      card(
        [
          { label: 'ID', value: 'j-1' },
          { label: 'JOURNAL', value: path },
        ],
        40,
      ),
    ).toBe(`ID:       j-1\nJOURNAL:\n  ${path}\n`);
  });

  it('a word that fits the line but not past the indent starts the line: the terminal never cuts its end off', () => {
    const path = `/tmp/advA/state/taskctl/jobs/j-${'x'.repeat(12)}.jsonl`;
    expect(textWidth(path)).toBe(49);
    const fields = [
      { label: 'ID', value: 'j-1' },
      { label: 'JOURNAL', value: path },
    ];
    expect(card(fields, 50)).toBe(`ID:       j-1\nJOURNAL:\n${path}\n`);
    expect(card(fields, 51)).toBe(`ID:       j-1\nJOURNAL:\n  ${path}\n`);
  });

  it('keeps a command it names whole, as messages do', () => {
    const text = card([{ label: 'NEXT', value: 'run taskctl resume j-abcdefghijklmnop --profile staging' }], 40);
    expect(text).toBe('NEXT:  run\n       taskctl resume j-abcdefghijklmnop --profile staging\n');
  });

  it('puts values under their labels when the labels take more than half the width', () => {
    const text = card([{ label: 'A_VERY_LONG_FIELD_NAME', value: 'one two three four five' }], 40);
    expect(text).toBe('A_VERY_LONG_FIELD_NAME:\n  one two three four five\n');
  });

  it('paints each wrapped line of a value, never the indentation', () => {
    const text = card([{ label: 'S', value: 'aaa bbb', paint: (line) => `<${line}>` }], 8);
    expect(text).toBe('S:  <aaa>\n    <bbb>\n');
  });

  it('keeps nested value lines, wrapping each', () => {
    expect(card([{ label: 'R', value: 'a: 1\nb: 2' }], 40)).toBe('R:  a: 1\n    b: 2\n');
  });
});

describe('cards', () => {
  it('one card per row, a blank line between two', () => {
    expect(cards([[{ label: 'ID', value: '1' }], [{ label: 'ID', value: '2' }]], 40)).toBe('ID:  1\n\nID:  2\n');
  });
});

describe('card, one field too wide for its place', () => {
  it('puts only that value under its label; the others stay beside theirs', () => {
    const text = card(
      [
        { label: 'Profile', value: 'default' },
        { label: 'Base URL', value: 'http://127.0.0.1:38857/api/v1' },
      ],
      32,
    );
    expect(text).toBe('Profile:   default\nBase URL:\n  http://127.0.0.1:38857/api/v1\n');
  });
});

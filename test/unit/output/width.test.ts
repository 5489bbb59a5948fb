import { describe, expect, it } from 'vitest';
import { wrapHelp } from '../../../src/commands/help-text.js';
import { cutToWidth, textWidth, wrapText, wrapWords } from '../../../src/output/width.js';

describe('wrapWords (the one word wrapper: messages, table notes and help texts)', () => {
  it('keeps the first word beside a term and hangs the rest under its text', () => {
    expect(wrapWords('  --timeout <d>  ', 'how long to wait for the tasks to finish', 36, ' '.repeat(17))).toBe(
      '  --timeout <d>  how long to wait\n                 for the tasks to\n                 finish',
    );
  });

  it('cuts a word wider than a line unless asked to keep it whole', () => {
    const path = '~/.local/share/bash-completion/completions/taskctl';
    expect(wrapWords('  ', `install to ${path}`, 30, '      ')).toBe(
      '  install to\n      ~/.local/share/bash-comp\n      letion/completions/taskc\n      tl',
    );
    expect(wrapWords('  ', `install to ${path}`, 30, '      ', { cutLongWords: false })).toBe(
      `  install to\n      ${path}`,
    );
  });

  it('is what wrapText does with a line of plain words', () => {
    const text = 'Exit: 0 all completed; 10 ended without completing; 11 some items did not complete';
    for (const width of [20, 30, 45]) expect(wrapWords('', text, width, '')).toBe(wrapText(text, width));
  });

  it('is the wrapper of the help texts: a plain help line wraps as wrapText wraps it', () => {
    const text = 'Exit: 0 all completed; 10 ended without completing; 11 some items did not complete';
    for (const width of [20, 30, 45]) expect(wrapHelp(text, width)).toBe(wrapText(text, width));
  });
});

describe('cutToWidth (live lines: spinners, the live block)', () => {
  it('cuts after a whole word, so a number keeps its unit: never "waiting 5…" or "(100 request…"', () => {
    const line = '⠋ creating 3 tasks: waiting 57s for the rate limit (100 requests/min)';
    expect(cutToWidth(line, 39)).toBe('⠋ creating 3 tasks: waiting 57s for…');
    expect(cutToWidth(line, 30)).toBe('⠋ creating 3 tasks: waiting…');
    for (const width of [20, 39, 60, 69]) expect(textWidth(cutToWidth(line, width))).toBeLessThanOrEqual(width);
  });

  it('keeps its colours and closes them; a line of one long word is still cut to the width', () => {
    expect(cutToWidth('\u001b[36m⠋\u001b[39m checking the task list', 18)).toBe(
      '\u001b[36m⠋\u001b[39m checking the…\u001b[0m',
    );
    expect(cutToWidth('2026-11-28T18:32:52Z', 12)).toBe('2026-11-28T…');
  });
});

describe("a spinner's text", () => {
  it('fits beside its glyph at any width, cut at a word: never wrapped, never a split timestamp', async () => {
    const { fitted } = await import('../../../src/output/spinner.js');
    const text =
      'chunk 3 was being sent when the job stopped (at 2026-11-28T18:20:52Z): checking the task list for it until 2026-11-28T18:32:52Z…';
    for (const columns of [40, 80, 120]) {
      const shown = fitted(text, { columns });
      expect(2 + textWidth(shown), shown).toBeLessThanOrEqual(columns - 1);
      expect(shown).toMatch(/…$/);
      expect(shown).not.toMatch(/\d{4}-\d\d-\d\dT…/);
    }
    expect(fitted('reading the balance…', { columns: 40 })).toBe('reading the balance…');
  });
});

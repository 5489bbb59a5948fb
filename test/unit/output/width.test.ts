import { describe, expect, it } from 'vitest';
import { wrapHelp } from '../../../src/commands/help-text.js';
import { wrapText, wrapWords } from '../../../src/output/width.js';

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

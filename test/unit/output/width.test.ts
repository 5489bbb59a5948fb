import { describe, expect, it } from 'vitest';
import { wrapHelp } from '../../../src/commands/help-text.js';
import {
  blockWidth,
  cutToWidth,
  textWidth,
  truncatePathStart,
  truncateText,
  wrapCell,
  wrapMessage,
  wrapText,
  wrapWords,
} from '../../../src/output/width.js';

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

  it('keeps the spacing of the words a line keeps: only the break between two lines drops its spaces', () => {
    // An aligned line one column too wide: its first line keeps its columns, the word that does not fit goes down.
    const line = '2026-11-29T19:44:57Z  task 8       email_verify  processing  2/8, 1 failed';
    expect(wrapWords('', line, line.length - 1, '  ')).toBe(
      '2026-11-29T19:44:57Z  task 8       email_verify  processing  2/8, 1\n  failed',
    );
    expect(wrapText('a  b   c    d', 8)).toBe('a  b   c\nd');
    expect(wrapText('  two  spaces  after  each  word', 16)).toBe('  two  spaces\n  after  each\n  word');
    // A command a message names keeps its own spacing too.
    expect(wrapMessage('Go on with:  taskctl resume  j-abcd --wait', 20)).toBe(
      'Go on with:\ntaskctl resume  j-abcd --wait',
    );
  });

  it('is the wrapper of the help texts: a plain help line wraps as wrapText wraps it', () => {
    const text = 'Exit: 0 all completed; 10 ended without completing; 11 some items did not complete';
    for (const width of [20, 30, 45]) expect(wrapHelp(text, width)).toBe(wrapText(text, width));
  });
});

describe('a command a message names (wrapText): never broken inside', () => {
  const hint =
    'stopped after chunk 3 of 5 (the balance ran out). Continue it with: taskctl --profile p2 resume j-mi3k2x1a7f3q';

  it('wraps before the command when it does not fit, so it starts a line of its own', () => {
    expect(wrapMessage(hint, 79)).toBe(
      'stopped after chunk 3 of 5 (the balance ran out). Continue it with:\ntaskctl --profile p2 resume j-mi3k2x1a7f3q',
    );
  });

  it('leaves a command wider than the line whole on its line, and goes on with the words after it', () => {
    const text = `still running: taskctl --profile p2 wait --job j-mi3k2x1a7f3q; or see it: taskctl jobs`;
    expect(wrapMessage(text, 30).split('\n')).toEqual([
      'still running:',
      'taskctl --profile p2 wait --job j-mi3k2x1a7f3q;',
      'or see it: taskctl jobs',
    ]);
  });

  it('ends a command at a backtick, a bracket, a comma or a sentence; a quoted flag value and $(seq …) are part of it', () => {
    const text =
      "Look at them (taskctl show 1 2), then: `taskctl --api-key-file 'my key.txt' resume j-1 --adopt 2=ID`, or not. " +
      'Next: taskctl jobs. Done';
    const lines = wrapMessage(text, 20).split('\n');
    expect(lines).toContain("`taskctl --api-key-file 'my key.txt' resume j-1 --adopt 2=ID`,");
    // At 16 columns plain word-wrap would break each of these; kept whole, each ends where the command does.
    expect(wrapMessage('Look (taskctl show 1 2), then', 16).split('\n')).toContain('(taskctl show 1 2),');
    expect(wrapMessage('Next: taskctl jobs --all. Then look again', 14).split('\n')).toContain('taskctl jobs --all.');
    expect(wrapMessage('See the items: taskctl show $(seq 32 131)', 20)).toBe(
      'See the items:\ntaskctl show $(seq 32 131)',
    );
  });

  it('a command with flags before it (with and without a value, --flag=value) or a quoted path is one piece', () => {
    expect(wrapMessage('Try it: taskctl --sandbox create s a.com --wait', 20).split('\n')).toEqual([
      'Try it:',
      'taskctl --sandbox create s a.com --wait',
    ]);
    expect(wrapMessage('Go on: taskctl --profile=staging resume j-abcd --wait', 20).split('\n')).toEqual([
      'Go on:',
      'taskctl --profile=staging resume j-abcd --wait',
    ]);
    expect(wrapMessage("Go on: taskctl resume '/home/me/jobs, 2026/j-abcd.jsonl' --wait", 30).split('\n')).toEqual([
      'Go on:',
      "taskctl resume '/home/me/jobs, 2026/j-abcd.jsonl' --wait",
    ]);
    expect(wrapMessage('taskctl create s -f <(seq 1 9), then wait', 20).split('\n')[0]).toBe(
      'taskctl create s -f <(seq 1 9),',
    );
  });

  it('a flag stays beside its value: `-o tsv` and `--page 2` are never split over two lines', () => {
    expect(wrapMessage('2 columns hidden (COST, FINISHED): --wide or -o tsv', 50).split('\n')).toEqual([
      '2 columns hidden (COST, FINISHED): --wide or',
      '-o tsv',
    ]);
    expect(wrapMessage('page 1 of 2; use --page 2 or --all for more', 22).split('\n')).toEqual([
      'page 1 of 2; use',
      '--page 2 or --all for',
      'more',
    ]);
  });

  it('cards, prompts and cells wrap as any text: keeping commands whole is for messages', () => {
    expect(wrapText('Nothing yet: taskctl watch --follow waits for new ones', 24)).toBe(
      'Nothing yet: taskctl\nwatch --follow waits for\nnew ones',
    );
  });

  it('a table cell and prose that only names taskctl wrap as any text', () => {
    expect(wrapCell('see taskctl show 42 -o json', 12)).toBe('see taskctl\nshow 42 -o\njson');
    expect(wrapMessage('This is a bug in taskctl: please report it', 20)).toBe(
      'This is a bug in\ntaskctl: please\nreport it',
    );
  });
});

describe('cutToWidth (live lines: spinners, the live block)', () => {
  it('cuts after a whole word, so a number keeps its unit: never "waiting 5…" or "(100 request…"', () => {
    const line = '⠋ creating 3 tasks: waiting 57s for the rate limit (100 requests/min)';
    expect(cutToWidth(line, 39)).toBe('⠋ creating 3 tasks: waiting 57s for…');
    expect(cutToWidth(line, 30)).toBe('⠋ creating 3 tasks: waiting…');
    for (const width of [20, 39, 60, 69]) expect(textWidth(cutToWidth(line, width))).toBeLessThanOrEqual(width);
  });

  it('leaves out an aside it would cut, when it opens in the second half: never "rate limit (100…"', () => {
    const line = '⠋ creating 3 tasks: waiting 57s for the rate limit (100 requests/min)';
    expect(cutToWidth(line, 60)).toBe('⠋ creating 3 tasks: waiting 57s for the rate limit…');
    expect(cutToWidth(`\u001b[36m${line}\u001b[39m`, 60)).toBe(
      '\u001b[36m⠋ creating 3 tasks: waiting 57s for the rate limit…\u001b[0m',
    );
    // An aside that closes before the cut stays; one opening in the first half is cut as any words are.
    expect(cutToWidth('task 7 (3/10 items) processing for a long while now', 40)).toBe(
      'task 7 (3/10 items) processing for a…',
    );
    expect(cutToWidth('task 7 (processing for a long while now)', 20)).toBe('task 7 (processing…');
  });

  it('an aside coloured apart is judged as one that is not: its colour sequence is not a word', () => {
    const plain = '⠋ task 24 processing (the server reports no item progress)';
    const dim = (text: string) => `\u001b[2m${text}\u001b[22m`;
    const coloured = `⠋ task 24 processing ${dim('(the server reports no item progress)')}`;
    expect(cutToWidth(plain, 40)).toBe('⠋ task 24 processing…');
    expect(cutToWidth(coloured, 40)).toBe('⠋ task 24 processing…\u001b[0m');
  });

  it('a line that already ends its kept part with an ellipsis gets no second one', () => {
    const line = 'reading task 24: creating chunk 13 of 50… (waiting 40s for the rate limit, 100 requests a window)';
    expect(cutToWidth(line, 60)).toBe('reading task 24: creating chunk 13 of 50…');
    expect(cutToWidth(`\u001b[36m${line}\u001b[39m`, 60)).toBe(
      '\u001b[36mreading task 24: creating chunk 13 of 50…\u001b[0m',
    );
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
      // Room for the terminal's ^C echo after it (output/width.ts liveLineBudget).
      expect(2 + textWidth(shown), shown).toBeLessThanOrEqual(columns - 3);
      expect(shown).toMatch(/…$/);
      expect(shown).not.toMatch(/\d{4}-\d\d-\d\dT…/);
    }
    expect(fitted('reading the balance…', { columns: 40 })).toBe('reading the balance…');
    // An aside it would cut goes whole: `(4…` says nothing.
    const held = 'reading task 24: waiting 52s for the rate limit (4 requests a window)…';
    expect(fitted(held, { columns: 80 })).toBe(held);
    expect(fitted(held, { columns: 70 })).toBe('reading task 24: waiting 52s for the rate limit…');
  });
});

describe('truncateText (table cells, lines that stay)', () => {
  it('cuts after a whole word and keeps an aside it cuts: what it holds is read there, not redrawn', () => {
    const reason = 'the registrar refused the lookup (HTTP 503 from whois.example.net; try later)';
    expect(truncateText(reason, 50)).toBe('the registrar refused the lookup (HTTP 503 from…');
    expect(truncateText(reason, reason.length)).toBe(reason);
  });
});

describe('truncatePathStart', () => {
  it('cuts a path at its start, at a slash, keeping the file name whole; a path that fits is whole', () => {
    const path = '/tmp/t6/h-ra/state/jobs/j-mx2a4aw19mpm.jsonl';
    expect(truncatePathStart(path, path.length)).toBe(path);
    expect(truncatePathStart(path, 30)).toBe('…/jobs/j-mx2a4aw19mpm.jsonl');
    expect(truncatePathStart(path, 30).length).toBeLessThanOrEqual(30);
    // Narrower than its file name: the name's end, never its middle.
    expect(truncatePathStart(path, 10)).toBe('…mpm.jsonl');
  });
});

describe('blockWidth', () => {
  it('the widest line of a cell of 2,000,000 lines (a result list of {}), never past the stack', () => {
    const text = `${Array(2_000_000).fill('{}').join('\n')}\nwidest line`;
    expect(blockWidth(text)).toBe(11);
  });
});

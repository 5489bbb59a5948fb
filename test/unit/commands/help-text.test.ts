/**
 * Every command's `--help` as people read it: fitted to the width without breaking a word, defaults as a
 * person writes them, the inherited global options, examples everywhere, exit codes that match what the commands do.
 */
import { describe, expect, it } from 'vitest';
import { commandPaths, render } from '../../../src/boot/render-help.js';
import { wrapHelp } from '../../../src/commands/help-text.js';
import { main } from '../../../src/main.js';
import { createMemoryIO } from '../../../src/output/memory-io.js';
import { buildProgram } from '../../../src/program.js';

const paths = [...commandPaths(buildProgram(createMemoryIO().io, () => Promise.resolve()))].filter(
  (path) => path[0] !== '__complete',
);

/**
 * Each text rendered once in this file: a path at a width always renders the same text, and the tests below read the
 * same texts many times (the unbounded one of every command six times), each render a run of `main`.
 */
const rendered = new Map<string, Promise<string>>();
const help = (path: string[], columns?: number): Promise<string> => {
  const key = `${columns ?? 'none'} ${path.join(' ')}`;
  const text = rendered.get(key) ?? render(main, path, columns);
  rendered.set(key, text);
  return text;
};

const words = (text: string) => text.split(/\s+/).filter(Boolean);
/** Words without an example's line continuations (` \` at a break). */
const wordsOf = (text: string) => words(text).filter((word) => word !== '\\');
/** The examples of a help text, each joined as a shell joins a continued line (`\` and the newline dropped). */
const examplesJoined = (text: string) =>
  (text.split('\nExamples:\n')[1]?.split(/\n(?! {2})/)[0] ?? '')
    .replace(/\\\n */g, ' ')
    .replace(/\n +# /g, ' ')
    .split('\n')
    .map((line) => line.trim().replace(/ +/g, ' '));

describe('wrapHelp', () => {
  it('breaks long lines at spaces, never inside a word, and leaves short ones alone', () => {
    expect(wrapHelp('short line', 20)).toBe('short line');
    const wrapped = wrapHelp('Exit: 0 all completed; 10 ended without completing; 11 items did not', 30);
    expect(wrapped.split('\n').every((line) => line.length <= 30)).toBe(true);
    expect(words(wrapped)).toEqual(words('Exit: 0 all completed; 10 ended without completing; 11 items did not'));
  });

  it('hangs continuation lines under the text after a term, and an indented line further in', () => {
    expect(wrapHelp('  124  wait/watch timed out with tasks still unfinished', 40)).toBe(
      '  124  wait/watch timed out with tasks\n       still unfinished',
    );
    expect(wrapHelp('  taskctl create some_service -f a-long-file.txt --wait', 40)).toBe(
      '  taskctl create some_service -f\n      a-long-file.txt --wait',
    );
  });

  it('continues a wrapped example as a shell does, never inside a quoted string or a comment', () => {
    const example = `  taskctl create domain_check_availability -f domains.txt -q -y | taskctl wait -`;
    expect(wrapHelp(`Examples:\n${example}`, 40)).toBe(
      [
        'Examples:',
        '  taskctl create \\',
        '      domain_check_availability -f \\',
        '      domains.txt -q -y | taskctl wait -',
      ].join('\n'),
    );
    expect(wrapHelp(`Examples:\n  taskctl retry 42 --error "rate limited now"   # pay again`, 30)).toBe(
      ['Examples:', '  taskctl retry 42 --error \\', '      "rate limited now" \\', '      # pay again'].join('\n'),
    );
    expect(wrapHelp(`Examples:\n  taskctl retry 42 --yes   # pay again, even for a retry just made`, 30)).toBe(
      ['Examples:', '  taskctl retry 42 --yes \\', '      # pay again, even for a', '      # retry just made'].join(
        '\n',
      ),
    );
    expect(wrapHelp('Examples:\n  taskctl list\n\nNot an example, a note that wraps', 20)).toBe(
      'Examples:\n  taskctl list\n\nNot an example, a\nnote that wraps',
    );
  });
});

describe('every --help', () => {
  it('covers every command (the tree has them all)', () => {
    expect(paths.map((path) => path.join(' '))).toEqual(
      expect.arrayContaining(['', 'auth', 'auth status', 'config set', 'webhook listen', 'completion', 'api', 'retry']),
    );
  });

  it.each([80, 60, 120])('fits %i columns and breaks no word', async (columns) => {
    for (const path of paths) {
      const text = await help(path, columns);
      const long = text.split('\n').filter((line) => line.length > columns);
      expect({ path, long }).toEqual({ path, long: [] });
      // Wrapping only moves words to new lines: the same words, in the same order, as on an unbounded terminal.
      expect({ path, words: wordsOf(text) }).toEqual({ path, words: wordsOf(await help(path, 10_000)) });
    }
  });

  it.each([40, 60])(
    'at %i columns every wrapped example, joined as a shell would, is the original command',
    async (columns) => {
      for (const path of paths) {
        const text = await help(path, columns);
        const wide = examplesJoined(await help(path, 10_000));
        expect(wide.length).toBeGreaterThan(0);
        expect({ path, examples: examplesJoined(text) }).toEqual({ path, examples: wide });
      }
    },
  );

  it('has examples for every command, each on one line at 80 columns', async () => {
    const examplesOf = (text: string) => text.split('\nExamples:\n')[1]?.split('\n\n')[0];
    for (const path of paths) {
      const text = await help(path);
      expect({ path, examples: examplesOf(text) }).toEqual({ path, examples: examplesOf(await help(path, 10_000)) });
      expect({ path, examples: /\nExamples:\n {2}taskctl /.test(text) || /\nExamples:\n {2}\S/.test(text) }).toEqual({
        path,
        examples: true,
      });
    }
  });

  it('lists the global options in every subcommand, compactly, and not in the root', async () => {
    const globals = [
      '--profile',
      '--base-url',
      '--api-key-file',
      '-o, --output',
      '--json',
      '-q, --quiet',
      '-v, --verbose',
      '--no-color',
      '--request-timeout',
      '--no-input',
      '--ci',
      '--sandbox',
    ];
    for (const path of paths.filter((p) => p.length > 0)) {
      const text = await help(path);
      const section = text.split('\nGlobal options (see taskctl --help):\n')[1]?.split('\n\n')[0] ?? '';
      expect({ path, missing: globals.filter((flag) => !section.includes(flag)) }).toEqual({ path, missing: [] });
      expect(section.split('\n').length).toBeLessThanOrEqual(4);
    }
    expect(await help([])).not.toMatch(/Global options/);
  });

  it('shows durations as a person writes them and no default for flags without a value', async () => {
    const wait = await help(['wait']);
    expect(wait).toMatch(/--interval <duration>[^]*\(default: 2s\)/);
    expect(wait).toMatch(/--timeout <duration>[^]*\(default:\s+30m\)/);
    expect(wait).not.toMatch(/1800000|2000\)/);
    expect(await help(['retry'])).toMatch(/created within this window \(default: 1h\)/);
    expect(await help(['webhook', 'listen'])).toMatch(/address to bind \(default: 127\.0\.0\.1\)/);
    for (const path of paths) {
      const text = await help(path);
      expect({ path, bool: /default: (false|true)\b|default: \[\]|default: "/.test(text) }).toEqual({
        path,
        bool: false,
      });
      // One way to write a default, commander's own: `(default: 2m)`, or `(default for a search: …)`.
      const flat = text.replace(/\s+/g, ' ');
      expect({ path, others: flat.match(/[;,] default\b(?!:)[^.;)]*|\(default (?!for )[^)]*\)/g) }).toEqual({
        path,
        others: null,
      });
    }
  });

  it("states wait's and watch's exit codes as they are now (10 = ended without completing)", async () => {
    for (const path of [['wait'], ['watch']]) {
      const text = (await help(path, 10_000)).replace(/\s+/g, ' ');
      expect(text).toMatch(/10 a task ended without completing/);
      expect(text).toMatch(/11 (completed, but )?some items did not/);
      expect(text).not.toMatch(/10 a task failed/);
    }
    const root = await help([]);
    expect(root).toMatch(/^ {3}12 {2}the service refused/m);
    expect(root).toMatch(/^ {3}13 {2}declined at the confirmation/m);
  });
});

describe('the root --help', () => {
  it('names every environment variable that changes where taskctl keeps its files', async () => {
    const text = (await help([], 10_000)).replace(/\s+/g, ' ');
    const environment = /Environment: ([^.]*)\./.exec(text)?.[1]?.split(', ') ?? [];
    for (const name of ['TASKCTL_CONFIG_DIR', 'TASKCTL_CACHE_DIR', 'TASKCTL_STATE_DIR'])
      expect(environment).toContain(name);
  });

  it('exit 2 names the spending refused with no terminal to confirm on, the case a script meets most', async () => {
    const text = (await help([], 10_000)).replace(/\s+/g, ' ');
    expect(text).toMatch(
      / 2 usage error: [^;]*; also spending at or above confirm-above with no terminal to confirm on /,
    );
  });
});

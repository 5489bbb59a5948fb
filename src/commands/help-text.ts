/**
 * What a command file needs to register itself on the commander tree: the action runner's type and the help-text
 * helpers. A leaf module (types and strings only), so commands never import program.ts (no import cycles).
 */
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { textWidth, wrapWords } from '../output/width.js';

export type CommandAction = (ctx: Context) => Promise<void>;
/** Runs a command's action with a context built from the parsed global flags of `command`. */
export type RunAction = (command: Command, action: CommandAction) => Promise<void>;

/** The exit-code table of `taskctl --help` (docs/behaviour.md#exit-codes has the same; values from `ExitCode` in errors.ts). */
export const EXIT_CODES: ReadonlyArray<[code: number, meaning: string]> = [
  [0, 'success'],
  [1, 'unexpected error (a bug: please report it)'],
  [
    2,
    'usage error: unknown command or flag, bad flag value, missing configuration; also spending at or above confirm-above with no terminal to confirm on (pass --yes or --max-cost)',
  ],
  [3, 'invalid input data (items file, server validation_error); nothing was sent or created'],
  [4, 'authentication: no key configured, 401 unauthorized or 403'],
  [5, 'not found: task or service'],
  [6, 'insufficient balance, or --max-cost would be exceeded; nothing (more) was created'],
  [7, 'rate limited, still limited after trying again or at the deadline'],
  [8, 'service unavailable: network error, timeout, 5xx or malformed response, after trying again'],
  [
    9,
    'create outcome unknown: a task may have been created (inspect it with the printed `taskctl show` or `list` command)',
  ],
  [10, 'a waited-on task ended without completing (failed, cancelled, expired, ...)'],
  [11, 'waited-on tasks completed, but some items did not (--allow-item-failures makes this 0)'],
  [12, 'the service refused the request (an error code taskctl does not know); not sent again: check the message'],
  [
    13,
    "declined at the confirmation prompt (answered no, or no answer); nothing was created. Also auth login's key prompt left without a key (the input ended); nothing was saved",
  ],
  [14, 'the output, a journal or temporary files could not be written (full disk, I/O error); a closed pipe is exit 0'],
  [15, 'diff: the two sides differ (0 when they are the same)'],
  [124, 'wait/watch timed out with tasks still unfinished'],
  [129, 'stopped by SIGHUP (the terminal closed); as 130 otherwise'],
  [130, 'interrupted (Ctrl-C); the message says how to resume'],
  [143, 'stopped by SIGTERM (kill, a CI runner); as 130 otherwise'],
];

/** The "Examples:" block of a command's `--help`. */
export function examples(lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((line) => `  ${line}`).join('\n')}\n`;
}

/** Two spaces or more after a term (`  --flag <x>  text`, `  124  text`): continuation lines hang under the text. */
const HANGING = /^(\s*)(?:\S+(?: \S+)*\s{2,}(?=\S))?/;

/**
 * Help text fitted to `width` columns: each longer line is broken at spaces (never inside a word), its continuation
 * lines indented under the line's text. Commander wraps only the items it lays out; this covers the rest (examples,
 * notes, exit codes, and items whose column commander judges too narrow to wrap). An example is a command people
 * paste, so it breaks as a shell reads it (`wrapExample`).
 */
export function wrapHelp(text: string, width: number): string {
  let inExamples = false;
  return text
    .split('\n')
    .map((line) => {
      inExamples = line === 'Examples:' || (inExamples && line.startsWith('  '));
      return inExamples && line !== 'Examples:' ? wrapExample(line, width) : wrapLine(line, width);
    })
    .join('\n');
}

/** A word of a shell command line, with the spaces before it. */
interface ShellPiece {
  gap: string;
  text: string;
}

/**
 * `command` split into shell words: a quoted string (`'a b'`, `"a \"b\""`) or an escaped space is inside its word, a
 * comment (`# …`) is one piece to the end, and a `\` that ends the line stays with the word before it.
 */
function shellPieces(command: string): ShellPiece[] {
  const pieces: ShellPiece[] = [];
  let i = 0;
  while (i < command.length) {
    const start = i;
    while (command[i] === ' ') i++;
    const gap = command.slice(start, i);
    if (i >= command.length) break;
    const from = i;
    if (command[i] === '#') i = command.length;
    let quote: string | undefined;
    while (i < command.length && (quote !== undefined || command[i] !== ' ')) {
      const char = command[i];
      if (quote === undefined && (char === "'" || char === '"')) quote = char;
      else if (char === quote) quote = undefined;
      else if (char === '\\' && quote !== "'") i++;
      i++;
    }
    const text = command.slice(from, i);
    const last = pieces[pieces.length - 1];
    if (text === '\\' && i >= command.length && last) last.text += `${gap}${text}`;
    else pieces.push({ gap, text });
  }
  return pieces;
}

/**
 * An example line fitted to `width` as a shell continues a command: a break ends its line with ` \` and the next line
 * starts four columns further in, so a pasted copy is still the one command; breaks fall only between shell words
 * (never in a quoted string), and a word wider than the line stays whole (the terminal wraps it). A trailing comment
 * too long for a line goes on as `# ` lines of its own.
 */
function wrapExample(line: string, width: number): string {
  if (textWidth(line) <= width) return line;
  const lead = /^ */.exec(line)?.[0] ?? '';
  const pieces = shellPieces(line.slice(lead.length));
  const indent = `${lead}    `;
  const lines: string[] = [];
  let current = lead;
  let empty = true;
  pieces.forEach(({ gap, text }, index) => {
    const room = index === pieces.length - 1 ? width : width - 2;
    if (!empty && textWidth(current) + gap.length + textWidth(text) > room) {
      lines.push(`${current} \\`);
      current = indent;
      empty = true;
    }
    // A comment (always the last piece) wider than its line goes on as comment lines: a `\` in it would continue nothing.
    if (empty && text.startsWith('#') && textWidth(current) + textWidth(text) > width) {
      current = wrapWords(current, text, width, `${indent}# `, { cutLongWords: false });
      return;
    }
    current += empty ? text : `${gap}${text}`;
    empty = false;
  });
  lines.push(current);
  return lines.join('\n');
}

function wrapLine(line: string, width: number): string {
  const term = HANGING.exec(line)?.[0] ?? '';
  const indent = term.length - term.trimStart().length;
  // Under the text after a term, unless that leaves under 30 columns (then the term wraps like any text); an
  // indented line (an example) continues further in, so its continuation does not read as a line of its own.
  const hanging = term.length > indent && term.length <= width - 30;
  const lead = hanging ? term : line.slice(0, indent);
  const hang = hanging ? term.length : indent > 0 ? indent + 4 : 0;
  return wrapWords(lead, line.slice(lead.length), width, ' '.repeat(hang), { cutLongWords: false });
}

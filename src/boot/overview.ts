/**
 * What a bare `taskctl` prints: a short overview, at most 25 lines — one line per command and the next step — instead
 * of the full `--help` (91 lines, the exit-code table at the bottom). `taskctl --help` keeps the full text. At a
 * terminal nothing is wider than it and no word is broken: a description ends with `…` after its last whole word that fits, and
 * the commands it tells you to run wrap at spaces. In a pipe or a file (no width) every description is whole.
 */
import type { Command } from 'commander';
import { textWidth, wrapWords } from '../output/width.js';

const HELP_LINE = 'All flags and exit codes: taskctl --help; one command: taskctl <command> --help';

/** `text` as the words of it that fit in `width` columns, followed by `…` when some were left out. */
function firstWords(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  let kept = '';
  for (const word of text.split(' ')) {
    const next = kept === '' ? word : `${kept} ${word}`;
    if (textWidth(next) + 1 > width) break;
    kept = next;
  }
  return kept === '' ? '' : `${kept.replace(/[,.]$/, '')}…`;
}

/** The commands, one line each, and where to go next, fitted to `width` (none: a pipe or a file, nothing cut). */
export function overview(program: Command, width = Number.POSITIVE_INFINITY): string {
  const commands = program.commands.filter((command) => !(command as { _hidden?: boolean })._hidden);
  const pad = Math.max(...commands.map((command) => command.name().length)) + 4;
  const entry = (command: Command) =>
    `  ${command.name().padEnd(pad - 2)}${firstWords(command.description().split(/[;:(]/)[0]?.trim() ?? '', width - pad)}`.trimEnd();
  // A command to type continues further in, so that its second line does not read as a command of its own.
  const run = (text: string) => wrapWords('  ', text, width, '      ', { cutLongWords: false });
  const say = (text: string) => wrapWords('', text, width, '');
  const labelled = (label: string, command: string) =>
    label.length + 1 + command.length <= width ? `${label} ${command}` : `${say(label)}\n${run(command)}`;
  return `${[
    say('taskctl: the command-line client of the task-processing service'),
    '',
    'Commands:',
    ...commands.map(entry),
    '',
    say('Start here (a local sandbox: no account, no network):'),
    run('taskctl --sandbox create domain_check_availability a.com b.com --wait'),
    labelled('With your service:', 'taskctl auth login --base-url URL'),
    textWidth(HELP_LINE) <= width
      ? HELP_LINE
      : `${labelled('All flags and exit codes:', 'taskctl --help')}\n${labelled('One command:', 'taskctl <command> --help')}`,
  ].join('\n')}\n`;
}

/**
 * What a bare `taskctl` prints: a short overview, at most 25 lines — one line per command and the next step —
 * instead of the full `--help` (91 lines, the exit-code table at the bottom). `taskctl --help` keeps the full text.
 */
import type { Command } from 'commander';
import { truncateText } from '../output/width.js';

/** The commands, one line each (cut to `width` with `…`), and where to go next. */
export function overview(program: Command, width: number): string {
  const commands = program.commands.filter((command) => !(command as { _hidden?: boolean })._hidden);
  const names = commands.map((command) => command.name());
  const pad = Math.max(...names.map((name) => name.length)) + 2;
  const lines = [
    'taskctl: the command-line client of the task-processing service',
    '',
    'Commands:',
    ...commands.map((command) =>
      truncateText(`  ${command.name().padEnd(pad)}${command.description().split(/[;:(]/)[0]?.trim() ?? ''}`, width),
    ),
    '',
    'Start here (a local sandbox: no account, no network):',
    '  taskctl --sandbox create domain_check_availability a.com b.com --wait',
    'With your service: taskctl auth login --base-url URL',
    'All flags and exit codes: taskctl --help; one command: taskctl <command> --help',
  ];
  return `${lines.map((line) => (line.length > width ? truncateText(line, width) : line)).join('\n')}\n`;
}

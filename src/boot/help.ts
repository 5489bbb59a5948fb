/**
 * `--help` without loading the CLI: the build renders every command's help once (src/boot/render-help.ts, through the
 * real commander tree) into dist/help.json, and a help request whose output would be the same is answered from it.
 * That output depends only on the command and the terminal width (commander wraps to it; 80 when stdout is not a
 * terminal), never on config or environment, so the fast path serves a text when the width is 80, or wider and the
 * text has nothing to wrap. Anything else (other flags, an unknown command, a narrow terminal) goes to commander.
 */

import { terminalColumns } from '../output/terminal-size.js';

/** dist/help.json. */
export interface HelpTexts {
  /** The width the texts were rendered for. */
  width: number;
  /** By command path ('' for the program, 'config set' for a subcommand). */
  commands: Record<string, { text: string; /** Identical at any width above `width`. */ wide: boolean }>;
}

/** The command path a help request asks for (`create --help`, `help create`, `-h`), else undefined. */
export function helpCommandPath(args: readonly string[]): string | undefined {
  const last = args.at(-1);
  if (last === '--help' || last === '-h') return args.slice(0, -1).join(' ');
  if (args[0] === 'help') return args.slice(1).join(' ');
  return undefined;
}

/** The text commander would print for `args` on `stdout`, when it is in `texts`. */
export function cachedHelp(
  texts: HelpTexts,
  args: readonly string[],
  stdout: { isTTY?: boolean; columns?: number },
): string | undefined {
  const path = helpCommandPath(args);
  const entry = path === undefined ? undefined : Object.hasOwn(texts.commands, path) ? texts.commands[path] : undefined;
  if (!entry) return undefined;
  const width = stdout.isTTY ? terminalColumns(stdout.columns, texts.width) : texts.width;
  if (width === texts.width || (width > texts.width && entry.wide)) return entry.text;
  return undefined;
}

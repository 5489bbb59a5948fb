/**
 * Renders dist/help.json at build time (src/boot/help.ts serves it): every command's `--help`, through `main` itself,
 * so the texts are byte for byte what commander prints.
 */
import type { Command } from 'commander';
import type { main as Main } from '../main.js';
import { systemClock } from '../lib/time.js';
import { createMemoryIO } from '../output/memory-io.js';
import type { HelpTexts } from './help.js';

const WIDTH = 80;
/** Wider than any help line: rendering at it shows whether a text wraps at WIDTH. */
const UNBOUNDED = 10_000;

export async function renderHelpTexts(main: typeof Main): Promise<HelpTexts> {
  const { buildProgram } = await import('../program.js');
  const program = buildProgram(createMemoryIO().io, async () => {});
  const commands: HelpTexts['commands'] = {};
  for (const path of commandPaths(program)) {
    const text = await render(main, path, undefined);
    commands[path.join(' ')] = { text, wide: text === (await render(main, path, UNBOUNDED)) };
  }
  return { width: WIDTH, commands };
}

/** Every command's path in the tree, the program's own ([]) first. */
export function* commandPaths(command: Command, path: string[] = []): Generator<string[]> {
  yield path;
  for (const sub of command.commands) yield* commandPaths(sub, [...path, sub.name()]);
}

/** `COMMAND --help` as commander prints it; `columns` undefined: stdout is not a terminal (commander's width is 80). */
export async function render(main: typeof Main, path: string[], columns: number | undefined): Promise<string> {
  const memory = createMemoryIO(columns === undefined ? {} : { stdoutTTY: true, columns });
  const code = await main([...path, '--help'], {
    io: memory.io,
    env: {},
    clock: systemClock,
    signal: new AbortController().signal,
  });
  if (code !== 0 || memory.stderr.text() !== '')
    throw new Error(`taskctl ${path.join(' ')} --help: exit ${code}: ${memory.stderr.text()}`);
  return memory.stdout.text();
}

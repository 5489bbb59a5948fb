/**
 * Long output for a person goes through a pager, as git and gh do: `$PAGER`, else `less` with `-FRX`
 * (quit if it fits one screen, keep colours, leave the text on the screen after quitting). Only when stdout is a
 * terminal and the text is taller than it; a pager that cannot start means the text is printed as it is.
 */
import { spawn } from 'node:child_process';
import type { Env, IO } from './io.js';
import type { Printer } from './printer.js';
import { knownColumns, knownRows, terminalColumns } from './terminal-size.js';

/** Shows `text` in the pager; resolves false (nothing shown) when no pager could be started. */
export type Pager = (text: string) => Promise<boolean>;

/**
 * Whether `text` needs a pager on a screen `rows` high (one line is left for the prompt). A terminal that reports no
 * height (output/terminal-size.ts `knownRows`) gets none: a pager waiting for keys on a CI or `docker run -t` pty
 * would hold the run.
 */
export function needsPager(text: string, rows: number | undefined): boolean {
  if (rows === undefined || rows <= 0) return false;
  let lines = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) if (++lines >= rows) return true;
  return false;
}

/** The real pager: `$PAGER` through the shell (it may carry flags), else `less`; LESS defaults to FRX. */
export function systemPager(env: Env): Pager {
  return (text) =>
    new Promise((resolve) => {
      const command = env.PAGER?.trim() ? env.PAGER : 'less';
      // `cat` (or an empty PAGER, like git) means "no pager".
      if (command === 'cat') {
        resolve(false);
        return;
      }
      const child = spawn(command, {
        shell: true,
        stdio: ['pipe', 'inherit', 'inherit'],
        env: { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' },
      });
      let started = true;
      child.on('error', () => {
        started = false;
        resolve(false);
      });
      // The reader quitting early (q in less) closes its input: not an error.
      child.stdin.on('error', () => undefined);
      child.on('close', (code) => {
        // 127: the shell did not find the pager; nothing was shown.
        if (started) resolve(code !== 127);
      });
      child.stdin.end(text);
    });
}

/**
 * Prints what `render` writes, through `pager` when it is terminal output (table format) taller than the screen: `show`,
 * and the results at the end of `wait`. Anything else is printed as `render` writes it. What `render` says on stderr
 * (a note such as "showing the first 1,000 of 2,000 items") comes first: at the top of the pager's first screen, or
 * before the text when it is not paged.
 */
export async function printPaged(
  printer: Printer,
  io: Pick<IO, 'stdout' | 'stderr'>,
  pager: Pager | undefined,
  render: (printer: Printer) => Promise<void> | void,
): Promise<void> {
  const { stdout, stderr } = io;
  if (pager === undefined || printer.format !== 'table' || stdout.isTTY !== true) {
    await render(printer);
    return;
  }
  const { createMemoryStream } = await import('./memory-io.js');
  const collected = createMemoryStream(true, terminalColumns(stdout.columns));
  const notes = createMemoryStream(
    stderr.isTTY === true,
    knownColumns(stderr.columns) ?? terminalColumns(stdout.columns),
  );
  await render(printer.to(collected, notes));
  const text = collected.text();
  const said = notes.text();
  if (needsPager(said + text, knownRows(stdout.rows)) && (await pager(said + text))) return;
  if (said !== '') stderr.write(said);
  if (text !== '') stdout.write(text);
}

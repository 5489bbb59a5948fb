/**
 * The printer of one run, from what the run knows of its output: the format asked for (flag, environment or profile;
 * else table on a terminal, tsv in a pipe), colour on each stream, -q, CI. The printer and the width tables load only
 * here, when a command runs.
 */
import type { Redactor } from '../lib/redact.js';
import type { Env } from '../lib/env.js';
import { loadChalk } from './colour.js';
import { canRedraw, colorEnabled, type IO } from './io.js';
import type { Printer } from './printer.js';
import { hintGlobals, type AccountFlags } from './hint-globals.js';

export interface RunPrinterOptions {
  io: IO;
  env: Env;
  /** The format asked for, validated here; undefined: the terminal's default. */
  format: string | undefined;
  /** `--no-color`. */
  noColor: boolean;
  quiet: boolean;
  ci: boolean;
  redact: Redactor;
  now: () => number;
  /** The clock log lines are stamped with: this machine's (PrinterOptions.stampNow). */
  stampNow: () => number;
  /** The flags that chose the run's account (none on a one-off `--sandbox`): repeated in every hint on stderr. */
  account?: AccountFlags | undefined;
  /** A job id's journal, when hints name jobs by file (a relative TASKCTL_STATE_DIR: output/hint-globals.ts). */
  jobFile?: ((id: string) => string | undefined) | undefined;
}

export async function createRunPrinter(options: RunPrinterOptions): Promise<Printer> {
  const { io, env, noColor, ci } = options;
  const [{ createPrinter }, { resolveFormat }] = await Promise.all([import('./printer.js'), import('./format.js')]);
  const color = colorEnabled(io.stdout, env, noColor, ci);
  const stderrColor = colorEnabled(io.stderr, env, noColor, ci);
  if (color || stderrColor) await loadChalk();
  // Messages are word-wrapped for a person at a terminal; scripts and logs get them on one line each.
  const wrapping = io.stderr.isTTY === true ? await import('./width.js') : undefined;
  // ... and screens of fields to stdout's width when it is a terminal.
  const stacking = io.stdout.isTTY === true ? await import('./stack.js') : undefined;
  return createPrinter({
    io,
    format: resolveFormat(options.format, io.stdout.isTTY === true),
    color,
    stderrColor,
    quiet: options.quiet,
    redact: options.redact,
    redraw: canRedraw(io.stderr, env, ci),
    now: options.now,
    stampNow: options.stampNow,
    hints: hintGlobals(options.account ?? {}, options.jobFile),
    ...(wrapping && { wrap: wrapping.wrapMessage, wrapWidth: () => wrapping.lineBudget(io.stderr.columns) }),
    ...(stacking && { card: stacking.card }),
  });
}

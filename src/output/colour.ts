/**
 * Colour: chalk is the only source of colour escapes. Each stream gets its own instance at an explicit
 * level, decided by `colorEnabled` (output/io.ts): chalk's own detection looks at process.stdout, which is not
 * necessarily the stream written to (tests, `taskctl list | less` with coloured errors).
 *
 * chalk loads only for a run that colours a stream (`loadChalk`, called by output/run-printer.ts): loading it costs
 * ~2 ms of every start-up (docs/performance.md), and output without colour never needed it.
 */
import type { ChalkInstance } from 'chalk';

export type { ChalkInstance } from 'chalk';

let chalk: typeof import('chalk') | undefined;

/** Loads chalk; a palette with colour may be asked for once this has resolved. */
export async function loadChalk(): Promise<void> {
  chalk ??= await import('chalk');
}

/**
 * What chalk at level 0 does, without chalk: every style, and any chain of them, gives its arguments back as text
 * (joined by spaces); `visible` gives nothing, as chalk's does when colour is off.
 */
const PLAIN: ChalkInstance = new Proxy(() => undefined, {
  get: (_target, name) =>
    typeof name !== 'string' || name === 'then'
      ? undefined
      : name === 'level'
        ? 0
        : name === 'visible'
          ? NOTHING
          : PLAIN,
  apply: (_target, _this, texts: unknown[]) => (texts.length === 1 ? String(texts[0]) : texts.join(' ')),
}) as unknown as ChalkInstance;
const NOTHING: ChalkInstance = new Proxy(() => undefined, {
  get: (_target, name) => (typeof name !== 'string' || name === 'then' ? undefined : name === 'level' ? 0 : NOTHING),
  apply: () => '',
}) as unknown as ChalkInstance;

/** Basic 16 colours when `enabled` (every terminal has them; chalk must be loaded: `loadChalk`), else none. */
export function palette(enabled: boolean): ChalkInstance {
  if (!enabled) return PLAIN;
  if (chalk === undefined) throw new Error('a colour palette was asked for before loadChalk()');
  return new chalk.Chalk({ level: 1 });
}

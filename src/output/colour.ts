/**
 * Colour: chalk is the only source of colour escapes. Each stream gets its own instance at an explicit
 * level, decided by `colorEnabled` (output/io.ts): chalk's own detection looks at process.stdout, which is not
 * necessarily the stream written to (tests, `taskctl list | less` with coloured errors).
 */
import { Chalk, type ChalkInstance } from 'chalk';

export type { ChalkInstance } from 'chalk';

/** Basic 16 colours when `enabled` (every terminal has them), else an instance that adds nothing. */
export function palette(enabled: boolean): ChalkInstance {
  return new Chalk({ level: enabled ? 1 : 0 });
}

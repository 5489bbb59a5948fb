/**
 * `-q` alone: stdout gets only what a script feeds to the next command, one a line (task ids, item targets, service
 * names, the balance's number); with an explicit `-o` or `--json` the format wins and `-q` only quiets stderr
 * (docs/behaviour.md#quiet).
 */
import type { GlobalOptions } from './capabilities.js';
import type { Printer, RowStream } from '../output/printer.js';

export function idsOnly(globals: GlobalOptions): boolean {
  return globals.quiet === true && globals.output === undefined && globals.json !== true;
}

/** A row stream that prints each row's identifier on a line of its own, as the rows come. */
export function idLines<T>(printer: Printer, id: (row: T) => string | number): RowStream<T> {
  return {
    write: (rows) => {
      for (const row of rows) printer.line(String(id(row)));
    },
    end: async () => {},
    abort: async () => {},
  };
}

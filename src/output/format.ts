import { UsageError } from '../errors.js';

/** The output formats: the one list for `-o`'s choices, the `output` setting and shell completion. */
export const OUTPUT_FORMATS = ['table', 'tsv', 'csv', 'json', 'ndjson'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

function isOutputFormat(value: string): value is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(value);
}

/**
 * The `-o` value (or `TASKCTL_OUTPUT` / config), else the default: `table` for a person at a terminal, `tsv` for a
 * pipe (docs/behaviour.md#output). Case-insensitive and trimmed, since the value may come from an env var or a config file.
 */
export function resolveFormat(flag: string | undefined, stdoutIsTTY: boolean): OutputFormat {
  if (flag === undefined || flag.trim() === '') return stdoutIsTTY ? 'table' : 'tsv';
  const value = flag.trim().toLowerCase();
  if (isOutputFormat(value)) return value;
  throw new UsageError(
    `invalid output format ${JSON.stringify(flag)}: valid formats are ${OUTPUT_FORMATS.join(', ')}`,
    `for example: -o json`,
  );
}

/** Formats read by programs: no spinners, progress as plain lines. */
export function isJsonFormat(format: OutputFormat): boolean {
  return format === 'json' || format === 'ndjson';
}

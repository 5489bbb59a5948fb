import { describe, expect, it } from 'vitest';
import { ExitCode, UsageError } from '../../../src/errors.js';
import { isJsonFormat, OUTPUT_FORMATS, resolveFormat } from '../../../src/output/format.js';

describe('resolveFormat', () => {
  it('defaults to table on a TTY and tsv in a pipe', () => {
    expect(resolveFormat(undefined, true)).toBe('table');
    expect(resolveFormat(undefined, false)).toBe('tsv');
    expect(resolveFormat('', false)).toBe('tsv');
  });

  it('accepts every format, whatever the case or surrounding space', () => {
    for (const format of OUTPUT_FORMATS) expect(resolveFormat(format, true)).toBe(format);
    expect(resolveFormat(' JSON ', true)).toBe('json');
    expect(resolveFormat('table', false)).toBe('table');
  });

  it('rejects an unknown format with a usage error listing the valid ones', () => {
    let caught: unknown;
    try {
      resolveFormat('xml', true);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UsageError);
    const error = caught as UsageError;
    expect(error.exitCode).toBe(ExitCode.usage);
    expect(error.message).toContain('"xml"');
    for (const format of OUTPUT_FORMATS) expect(error.message).toContain(format);
  });

  it('knows which formats are JSON', () => {
    expect(OUTPUT_FORMATS.filter(isJsonFormat)).toEqual(['json', 'ndjson']);
  });
});

import { InputError } from '../../errors.js';
import { describeChar, quoteForMessage, trimItem } from './clean.js';
import { addItem, type FormatContext } from './formats.js';
import { locateJsonError } from './json-locate.js';
import { lineAtEnd, type LineHandler } from './lines.js';

/** A whole JSON document is held as one string; V8 strings top out near 512 Mi characters, so stop well before. */
const MAX_JSON_CHARS = 256 * 1024 * 1024;

const ARRAY_HINT = 'Write items as a JSON array of strings, e.g. ["example.com", "example.org"].';
const NDJSON_HINT = 'Put one JSON string per line, e.g. "example.com".';

/** `ndjson`: one JSON string, or object with the `--column` property, per line; blank lines skipped. */
export function ndjsonHandler(ctx: FormatContext): LineHandler {
  return (line, lineNo) => {
    const text = trimItem(line);
    if (text.length === 0) return;
    const value = parseJson(text, NDJSON_HINT, (offset) => `${ctx.name}:${lineNo}:${offset + 1}`);
    takeValue(ctx, value, lineNo, NDJSON_HINT, () => `${ctx.name}:${lineNo}: item`);
  };
}

/** `json`: the whole input is one top-level array of strings, or of objects with the `--column` property. */
export class JsonDocument {
  private readonly parts: string[] = [];
  private length = 0;

  constructor(private readonly ctx: FormatContext) {}

  push(text: string): void {
    if (text.length === 0) return;
    this.length += text.length;
    if (this.length > MAX_JSON_CHARS) {
      throw new InputError(
        `${this.ctx.name}: JSON document is larger than ${MAX_JSON_CHARS / 1024 / 1024} MiB`,
        'Use NDJSON (one item per line, --format ndjson) or plain lines for inputs this large.',
      );
    }
    this.parts.push(text);
  }

  /** Text received so far: only for locating a decoding fault. */
  text(): string {
    return this.parts.join('');
  }

  finish(): void {
    const text = this.parts.join('');
    this.parts.length = 0;
    if (trimItem(text).length === 0) return; // empty: reported as "no items" by the reader
    const value = parseJson(text, ARRAY_HINT, (offset) => {
      const line = lineAtEnd(text.slice(0, offset));
      const lineStart = Math.max(text.lastIndexOf('\n', offset - 1), text.lastIndexOf('\r', offset - 1)) + 1;
      return `${this.ctx.name}:${line}:${offset - lineStart + 1}`;
    });
    if (!Array.isArray(value)) {
      throw new InputError(`${this.ctx.name}: expected a JSON array of items, found ${typeName(value)}`, ARRAY_HINT);
    }
    for (let i = 0; i < value.length; i++) {
      takeValue(this.ctx, value[i], i + 1, ARRAY_HINT, () => this.ctx.collector.describe(i + 1));
    }
  }
}

/** JSON.parse with errors that name `where` (line and column) instead of V8's text, which may quote raw input. */
function parseJson(text: string, formatHint: string, where: (offset: number) => string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    if (error instanceof RangeError) {
      // V8's parser is iterative today, but a stack or length limit must still end as an input error.
      throw new InputError(`${where(0)}: JSON is nested too deeply or too large to read`, formatHint);
    }
    const offset = locateJsonError(text);
    const at = offset < 0 ? 0 : offset;
    const found = at >= text.length ? 'unexpected end of input' : `unexpected ${describeJsonChar(text.charCodeAt(at))}`;
    throw new InputError(
      `${where(at)}: invalid JSON (${found})`,
      `${formatHint} For plain items, one per line, use --format lines.`,
    );
  }
}

function describeJsonChar(code: number): string {
  return code > 0x20 && code < 0x7f ? `'${String.fromCharCode(code)}'` : describeChar(code);
}

/**
 * Turns one parsed element into an item. Strings are items; objects give their `column` property (own properties
 * only, so `__proto__` or `constructor` never reach the prototype). Anything else is rejected: a number past 2^53
 * has already lost digits in JSON.parse, so it is never accepted and never echoed.
 */
function takeValue(
  ctx: FormatContext,
  value: unknown,
  position: number,
  formatHint: string,
  subject: () => string,
): void {
  if (typeof value === 'string') {
    addItem(ctx, trimItem(value), position);
    return;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const column = ctx.column;
    const keys = `Its properties: ${listKeys(record)}.`;
    if (column === undefined) {
      throw new InputError(`${subject()} is an object; choose its property with --column NAME`, keys);
    }
    if (!Object.hasOwn(record, column)) {
      throw new InputError(`${subject()} has no ${quoteForMessage(column)} property`, keys);
    }
    const field = record[column];
    if (typeof field !== 'string') {
      throw new InputError(
        `${subject()}: ${quoteForMessage(column)} is ${typeName(field)}; items must be strings`,
        hintFor(field, formatHint),
      );
    }
    addItem(ctx, trimItem(field), position);
    return;
  }
  throw new InputError(`${subject()} is ${typeName(value)}; items must be strings`, hintFor(value, formatHint));
}

function hintFor(value: unknown, formatHint: string): string {
  if (typeof value === 'number') {
    return 'Quote numbers ("12345") so no digit is lost: JSON numbers past 2^53 are rounded.';
  }
  return formatHint;
}

function listKeys(record: Record<string, unknown>): string {
  const keys = Object.keys(record);
  if (keys.length === 0) return 'none';
  const shown = keys.slice(0, 10).map((key) => quoteForMessage(key, 40));
  return keys.length > 10 ? `${shown.join(', ')}, … (${keys.length} in all)` : shown.join(', ');
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return `a ${typeof value}`;
}

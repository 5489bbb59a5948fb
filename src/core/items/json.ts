import { InputError } from '../../errors.js';
import { trimItem } from './clean.js';
import { charWords, quoteForMessage } from '../../lib/sanitize.js';
import { addItem, type FormatContext } from './formats.js';
import { JSON_ENDS_EARLY, jsonFault } from '../../lib/json-locate.js';
import { lineAtEnd, type LineHandler } from './lines.js';
import { formatCount } from '../../output/numbers.js';

const ARRAY_HINT = 'Write items as a JSON array of strings, e.g. ["example.com", "example.org"].';
const NDJSON_HINT = 'Put one item per line: a JSON string ("example.com") or an object with a "target" string.';
/** The property an object element gives without --column: the item's own name in every export of taskctl. */
const DEFAULT_COLUMN = 'target';

/** `ndjson`: one JSON string, or object with the `--column` property (`target` by default), per line; blank lines skipped. */
export function ndjsonHandler(ctx: FormatContext): LineHandler {
  return (line, lineNo) => {
    const text = trimItem(line);
    if (text.length === 0) return;
    const value = parseJson(text, NDJSON_HINT, (offset) => `${ctx.name}:${lineNo}:${offset + 1}`);
    takeValue(ctx, value, lineNo, NDJSON_HINT, () => `${ctx.name}:${lineNo}: item`);
  };
}

/**
 * `json`: the whole input is one top-level array of strings, or of objects with the `--column` property (`target` by
 * default). Streamed: the array's elements are cut out as the text arrives (strings and nesting followed) and each is
 * parsed alone, so memory holds one element, never the document; an element longer than the line cap is refused as
 * soon as the cap is passed (docs/behaviour.md#limits).
 */
export class JsonDocument {
  /** 'start': before the array; 'array': inside it; 'after': past its `]`. */
  private state: 'start' | 'array' | 'after' = 'start';
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Where the next character is. */
  private line = 1;
  private column = 1;
  private lastCR = false;
  /** The element being read: its text so far, and where it starts. */
  private parts: string[] = [];
  private length = 0;
  private startLine = 1;
  private startColumn = 1;
  private elements = 0;

  constructor(private readonly ctx: FormatContext) {}

  push(text: string): void {
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.state === 'array') {
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (c === 92) this.escaped = true;
          else if (c === 34) this.inString = false;
        } else if (c === 34) this.inString = true;
        else if (c === 91 || c === 123) this.depth++;
        else if ((c === 93 || c === 125) && this.depth > 0) this.depth--;
        else if ((c === 44 || c === 93) && this.depth === 0) {
          this.keep(text.slice(from, i));
          this.element(c === 93);
          if (c === 93) this.state = 'after';
          from = i + 1;
        }
      } else if (c !== 32 && c !== 9 && c !== 10 && c !== 13) {
        if (this.state === 'after' || c !== 91) this.notArray(c);
        this.state = 'array';
        from = i + 1;
        this.startAt();
      }
      this.advance(c);
    }
    if (this.state === 'array') this.keep(text.slice(from));
  }

  /** The line a fault at the current end of input is on. */
  currentLine(): number {
    return this.line;
  }

  finish(): void {
    if (this.state === 'array')
      throw new InputError(
        `${this.ctx.name}:${this.line}:${this.column}: invalid JSON (${JSON_ENDS_EARLY})`,
        `${ARRAY_HINT} For plain items, one per line, use --format lines.`,
      );
  }

  private advance(c: number): void {
    if (c === 10) {
      if (!this.lastCR) this.line++;
      this.column = 1;
    } else if (c === 13) {
      this.line++;
      this.column = 1;
    } else this.column++;
    this.lastCR = c === 13;
  }

  private startAt(): void {
    this.parts = [];
    this.length = 0;
    // The element starts after the bracket or comma being read (advance() has not yet counted it).
    this.startLine = this.line;
    this.startColumn = this.column + 1;
  }

  private keep(text: string): void {
    if (text === '') return;
    this.length += text.length;
    if (this.length > this.ctx.maxLineLength)
      throw new InputError(
        `${this.ctx.name}:${this.startLine}: item ${this.elements + 1} is longer than ${formatCount(this.ctx.maxLineLength)} characters; stopped reading`,
        'Is this the right file? Items are short strings.',
      );
    this.parts.push(text);
  }

  /** An element ends (at a comma, or the array's `]` when `last`). */
  private element(last: boolean): void {
    const text = this.parts.join('');
    const at = (offset: number) => {
      const before = text.slice(0, offset);
      const lineBreak = Math.max(before.lastIndexOf('\n'), before.lastIndexOf('\r'));
      const line = this.startLine + lineAtEnd(before) - 1;
      const column = lineBreak === -1 ? this.startColumn + offset : offset - lineBreak;
      return `${this.ctx.name}:${line}:${column}`;
    };
    if (trimItem(text).length === 0) {
      if (last && this.elements === 0) return; // []
      throw new InputError(
        `${at(text.length)}: invalid JSON (unexpected '${last ? ']' : ','}')`,
        `${ARRAY_HINT} For plain items, one per line, use --format lines.`,
      );
    }
    const index = ++this.elements;
    const value = parseJson(text, ARRAY_HINT, at);
    takeValue(this.ctx, value, index, ARRAY_HINT, () => this.ctx.collector.describe(index));
    this.startAt();
  }

  /** The document is not an array: say what it is from its first character. */
  private notArray(c: number): never {
    const found = FIRST_CHAR[String.fromCharCode(c)] ?? (c >= 48 && c <= 57 ? 'a number' : undefined);
    if (this.state === 'start' && found !== undefined)
      throw new InputError(`${this.ctx.name}: expected a JSON array of items, found ${found}`, ARRAY_HINT);
    throw new InputError(
      `${this.ctx.name}:${this.line}:${this.column}: invalid JSON (unexpected ${charWords(c)})`,
      `${ARRAY_HINT} For plain items, one per line, use --format lines.`,
    );
  }
}

const FIRST_CHAR: Record<string, string> = {
  '{': 'an object',
  '"': 'a string',
  '-': 'a number',
  t: 'a boolean',
  f: 'a boolean',
  n: 'null',
};

/** JSON.parse with errors that name `where` (line and column) instead of V8's text, which may quote raw input. */
function parseJson(text: string, formatHint: string, where: (offset: number) => string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // V8's parser is iterative today, but a stack or length limit (a text that is valid JSON) must still end as an
    // input error: jsonFault says so for a text it finds valid.
    const fault = jsonFault(text);
    if (error instanceof RangeError || fault.at < 0)
      throw new InputError(`${where(0)}: the JSON cannot be read (${fault.words})`, formatHint);
    throw new InputError(
      `${where(fault.at)}: invalid JSON (${fault.words})`,
      `${formatHint} For plain items, one per line, use --format lines.`,
    );
  }
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
    const column = ctx.column ?? (Object.hasOwn(record, DEFAULT_COLUMN) ? DEFAULT_COLUMN : undefined);
    const keys = `Its properties: ${listKeys(record)}.`;
    if (column === undefined) {
      throw new InputError(`${subject()} is an object with no "target"; choose its property with --column NAME`, keys);
    }
    if (!Object.hasOwn(record, column)) {
      throw new InputError(`${subject()} has no ${quoteForMessage(column)} property`, keys);
    }
    const field = record[column];
    if (typeof field !== 'string') {
      throw new InputError(
        `${subject()}: ${quoteForMessage(column)} is ${typeName(field)}; items must be strings`,
        hintFor(
          field,
          `Give ${quoteForMessage(column)} as a JSON string, e.g. {${JSON.stringify(column)}: "example.com"}.`,
        ),
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

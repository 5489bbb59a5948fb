import { InputError } from '../../errors.js';
import { trimItem } from './clean.js';
import { charWords, quoteForMessage } from '../../lib/sanitize.js';
import { addItem, type FormatContext } from './formats.js';
import { formatCount } from '../../output/numbers.js';

const QUOTE = 0x22;
const COMMA = 0x2c;

/** Where a CSV's records go: the source's name and line cap for errors, and each record (the header first). */
interface CsvSink {
  name: string;
  maxLineLength: number;
  /** One record's fields, with the line it starts on. */
  record: (fields: string[], line: number) => void;
}

/**
 * `csv` (RFC 4180): comma-separated, fields optionally in double quotes with `""` for a quote, quoted fields may span
 * lines. Fed line by line by the `LineSplitter`, so line numbers and the length cap come for free; a record that spans
 * lines is named by the line it starts on. Blank lines between records are skipped; a quote inside an unquoted field
 * is kept literally (as most spreadsheet exports expect). Every record, the header included, goes to the sink.
 */
export class CsvRecords {
  private fields: string[] = [];
  private field = '';
  private inQuotes = false;
  private recordLine = 0;
  private recordLength = 0;

  constructor(private readonly ctx: CsvSink) {}

  readonly line = (raw: string, lineNo: number): void => {
    if (this.inQuotes) {
      // The line break was inside a quoted field: it is part of the value.
      this.field += '\n';
      this.recordLength += raw.length + 1;
      if (this.recordLength > this.ctx.maxLineLength) {
        throw new InputError(
          `${this.ctx.name}:${this.recordLine}: CSV record is longer than ` +
            `${formatCount(this.ctx.maxLineLength)} characters`,
          'Is a closing quote missing? Inside a quoted field, write a quote as two quotes ("").',
        );
      }
      const resume = this.readQuoted(raw, 0, lineNo);
      if (resume !== undefined) this.parse(raw, lineNo, resume, false);
      return;
    }
    if (trimItem(raw).length === 0) return;
    this.recordLine = lineNo;
    this.recordLength = raw.length;
    this.parse(raw, lineNo, 0, true);
  };

  /** Ends the input: an unclosed quote is an error. */
  end(): void {
    if (this.inQuotes) {
      throw new InputError(
        `${this.ctx.name}:${this.recordLine}: quoted field is never closed`,
        'Close the quote. Inside a quoted field, write a quote as two quotes ("").',
      );
    }
  }

  /**
   * Parses the fields of `raw` from `i`: at the start of a field, or (`atFieldStart` false) just past the closing
   * quote of a field carried over from earlier lines.
   */
  private parse(raw: string, lineNo: number, i: number, atFieldStart: boolean): void {
    const n = raw.length;
    for (;;) {
      if (atFieldStart) {
        if (raw.charCodeAt(i) === QUOTE) {
          this.inQuotes = true;
          this.field = '';
          const after = this.readQuoted(raw, i + 1, lineNo);
          if (after === undefined) return; // the field continues on the next line
          i = after;
        } else {
          const comma = raw.indexOf(',', i);
          const end = comma === -1 ? n : comma;
          this.field = raw.slice(i, end);
          i = end;
        }
      }
      this.fields.push(this.field);
      this.field = '';
      if (i >= n) break;
      i++; // the comma
      atFieldStart = true;
    }
    const fields = this.fields;
    this.fields = [];
    this.record(fields);
  }

  /** Reads quoted content from `i` (inside the quotes): the index past the closing quote, or undefined when the field
   * goes on to the next line. */
  private readQuoted(raw: string, i: number, lineNo: number): number | undefined {
    for (;;) {
      const quote = raw.indexOf('"', i);
      if (quote === -1) {
        this.field += raw.slice(i);
        return undefined;
      }
      this.field += raw.slice(i, quote);
      if (raw.charCodeAt(quote + 1) === QUOTE) {
        this.field += '"';
        i = quote + 2;
        continue;
      }
      this.inQuotes = false;
      const after = quote + 1;
      if (after < raw.length && raw.charCodeAt(after) !== COMMA) {
        throw new InputError(
          `${this.ctx.name}:${lineNo}: unexpected ${charWords(raw.charCodeAt(after))} after a closing quote`,
          'Inside a quoted field, write a quote as two quotes (""); a closing quote must end the field.',
        );
      }
      return after;
    }
  }

  private record(fields: string[]): void {
    this.ctx.record(fields, this.recordLine);
  }
}

/**
 * Items from a CSV: the first record is the header; `--column` picks a column by name (exact, else case-insensitive),
 * default the first. Empty cells are skipped.
 */
export class CsvReader {
  private header: string[] | undefined;
  private columnIndex = 0;
  private readonly records: CsvRecords;

  constructor(private readonly ctx: FormatContext) {
    this.records = new CsvRecords({ name: ctx.name, maxLineLength: ctx.maxLineLength, record: this.record });
  }

  readonly line = (raw: string, lineNo: number): void => this.records.line(raw, lineNo);

  /** Ends the input: an unclosed quote is an error. */
  end(): void {
    this.records.end();
  }

  private readonly record = (fields: string[], line: number): void => {
    if (this.header === undefined) {
      this.header = fields.map((name) => trimItem(name));
      this.columnIndex = this.chooseColumn(this.header, line);
      return;
    }
    const value = fields[this.columnIndex];
    if (value !== undefined) addItem(this.ctx, trimItem(value), line);
  };

  private chooseColumn(header: string[], line: number): number {
    const wanted = this.ctx.column;
    if (wanted === undefined) {
      // A file of items with no header row (what `cut` or a spreadsheet's one column gives) would lose its first item
      // unseen: refused, with both readings named (docs/commands.md, the item formats).
      const [first = ''] = header;
      if (this.ctx.isItem?.(first) === true)
        throw new InputError(
          `${this.ctx.name}:${line}: the first row is read as the CSV's header, but its first cell, ${quoteForMessage(first, 40)}, is an item`,
          'If the file has no header row, read it one item a line with --format lines; if it has one, name its column with --column.',
        );
      return 0;
    }
    const exact = header.indexOf(wanted);
    if (exact !== -1) return exact;
    const lower = wanted.toLowerCase();
    const loose = header.flatMap((name, index) => (name.toLowerCase() === lower ? [index] : []));
    const [only, ...others] = loose;
    if (only !== undefined && others.length === 0) return only;
    const available = header.map((name) => quoteForMessage(name, 40)).join(', ');
    throw new InputError(
      `${this.ctx.name}:${line}: no column ${quoteForMessage(wanted)} in the CSV header`,
      `Columns: ${available}. Pass one of them with --column (the first row must be a header).`,
    );
  }
}

export type LineHandler = (line: string, lineNo: number) => void;

/**
 * Splits decoded text chunks into physical lines (LF, CRLF or a lone CR), numbering them from 1 and carrying the
 * unfinished last line into the next chunk. Splitting whole chunks keeps a million lines to a few hundred `split`
 * calls.
 * A line longer than `maxLineLength` is reported as soon as it is seen, so an endless line never fills memory.
 */
export class LineSplitter {
  /** The unfinished last line, in the pieces it arrived in (joined once its end comes: no copy per chunk). */
  private carry: string[] = [];
  private carryLength = 0;
  /** Physical lines completed so far. */
  private done = 0;

  constructor(
    private readonly maxLineLength: number,
    private readonly onTooLong: (lineNo: number) => never,
  ) {}

  push(text: string, onLine: LineHandler): void {
    if (text.length === 0) return;
    // A chunk with no line break only extends the unfinished line: checked against the cap before it is kept.
    if (!text.includes('\n') && !text.includes('\r') && !this.heldCR()) {
      this.carryLength += text.length;
      if (this.carryLength > this.maxLineLength) this.onTooLong(this.done + 1);
      this.carry.push(text);
      return;
    }
    let all = this.carry.length > 0 ? this.carry.join('') + text : text;
    this.carry = [];
    this.carryLength = 0;
    // A CR at the very end may be the first half of a CRLF split across chunks: decide once the next chunk arrives.
    const heldCR = all.charCodeAt(all.length - 1) === 13;
    if (heldCR) all = all.slice(0, -1);
    const parts = !all.includes('\r') ? all.split('\n') : all.split(/\r\n|\r|\n/);
    const last = parts.length - 1;
    for (let k = 0; k < last; k++) {
      const line = parts[k] ?? ''; // k < last
      this.done++;
      if (line.length > this.maxLineLength) this.onTooLong(this.done);
      onLine(line, this.done);
    }
    const tail = parts[last] ?? ''; // split returns at least one part
    const carry = heldCR ? `${tail}\r` : tail;
    if (carry.length > this.maxLineLength) this.onTooLong(this.done + 1);
    if (carry !== '') {
      this.carry.push(carry);
      this.carryLength = carry.length;
    }
  }

  /** Emits the last line if the input did not end with a line break. */
  end(onLine: LineHandler): void {
    const rest = this.carry.join('');
    this.carry = [];
    this.carryLength = 0;
    if (rest.length === 0) return;
    this.done++;
    onLine(rest.charCodeAt(rest.length - 1) === 13 ? rest.slice(0, -1) : rest, this.done);
  }

  /** The line the next character belongs to: where a fault found mid-line is reported. */
  get currentLine(): number {
    return this.done + (this.heldCR() ? 2 : 1);
  }

  /** The unfinished line ends with a CR, which may be the first half of a CRLF. */
  private heldCR(): boolean {
    const last = this.carry[this.carry.length - 1];
    return last?.charCodeAt(last.length - 1) === 13;
  }
}

/** Line number (from 1) of the position just past `text`, counting LF, CRLF and lone CR as one break each. */
export function lineAtEnd(text: string): number {
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    else if (c === 13 && text.charCodeAt(i + 1) !== 10) line++;
  }
  return line;
}

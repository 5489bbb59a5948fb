/**
 * The items of a `show -o json` export read as the text streams in, one item's text at a time: the document is a
 * task (`{..., "items": [...]}`), a list of tasks, or a list of item records (`{"target": ...}`). A scanner follows
 * strings and nesting; an object that is the whole document or an element of the top-level list is a candidate: it
 * is kept as text and parsed when it closes (an item record), unless an `"items": [` opens inside it at its own level
 * (a task): then the text before it is parsed for the task's id and service, and each element of that list is cut
 * out and parsed on its own. Memory holds one item's text, never the document.
 */
import { InputError } from '../../errors.js';
import { parseJsonExact } from './exact-json.js';
import { MAX_SIDE_LINE, MAX_SIDE_LINE_TEXT } from './limits.js';

interface JsonItemSink {
  /** An item record of a list of records. */
  record: (record: Record<string, unknown>, line: number) => void;
  /** An item of a task (its id and service when they came before its `items`). */
  taskItem: (item: Record<string, unknown>, task: { id: number | null; service: string | null }, line: number) => void;
}

const ITEMS_KEY = /"items"\s*:\s*$/;

export class JsonItemScanner {
  /** Open containers, `{` or `[`. */
  private readonly stack: string[] = [];
  private inString = false;
  private escaped = false;
  private line = 1;
  /** The candidate's depth (stack length inside it), its text so far, and the line it starts on. */
  private candidateDepth = 0;
  private candidate: string[] = [];
  private candidateLine = 0;
  /** Inside a task's items: the list's depth, the task, and the current item's text. */
  private itemsDepth = 0;
  private task: { id: number | null; service: string | null } | undefined;
  private item: string[] = [];
  private itemLine = 0;
  private sawValue = false;
  /** Characters of the candidate or item being collected: refused past MAX_SIDE_LINE (limits.ts). */
  private held = 0;

  constructor(
    private readonly name: string,
    private readonly sink: JsonItemSink,
  ) {}

  push(text: string): void {
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) this.line++;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92) this.escaped = true;
        else if (c === 34) this.inString = false;
        continue;
      }
      if (c === 34) this.inString = true;
      else if (c === 123 || c === 91) {
        this.keep(text.slice(from, i));
        from = i + 1;
        this.open(c === 123 ? '{' : '[');
      } else if (c === 125 || c === 93) {
        this.keep(text.slice(from, i + 1));
        from = i + 1;
        this.close();
      } else if (c > 32 && this.stack.length === 0) throw this.invalid('a JSON array or object');
    }
    this.keep(text.slice(from));
  }

  /** The line being read: where a fault found now is. */
  get currentLine(): number {
    return this.line;
  }

  end(): void {
    if (this.stack.length > 0 || this.inString) throw this.invalid('the end of the JSON document', true);
    if (!this.sawValue) throw new InputError(`${this.name}: empty JSON document`);
  }

  /** Text read since the last bracket goes to whatever is being collected. */
  private keep(text: string): void {
    if (text === '') return;
    if (this.task !== undefined && this.item.length > 0) this.item.push(text);
    else if (this.task === undefined && this.candidate.length > 0) this.candidate.push(text);
    else return;
    this.held += text.length;
    if (this.held > MAX_SIDE_LINE) {
      const line = this.task === undefined ? this.candidateLine : this.itemLine;
      throw new InputError(
        `${this.name}:${line}: an item is longer than ${MAX_SIDE_LINE_TEXT}; stopped reading`,
        'diff reads the json, ndjson and csv that `taskctl show` writes.',
      );
    }
  }

  private open(bracket: string): void {
    this.stack.push(bracket);
    // Nesting outside an item is not a results file's; inside one, the item's own cap bounds it.
    if (this.stack.length > MAX_SIDE_LINE) throw this.invalid('an item, not nesting this deep');
    this.sawValue = true;
    const depth = this.stack.length;
    if (this.task !== undefined) {
      if (depth === this.itemsDepth + 1 && this.item.length === 0) {
        this.held = 0;
        this.item.push(bracket);
        this.itemLine = this.line;
      } else if (this.item.length > 0) this.item.push(bracket);
      return;
    }
    const isCandidate = bracket === '{' && (depth === 1 || (depth === 2 && this.stack[0] === '['));
    if (isCandidate) {
      this.held = 0;
      this.candidate = ['{'];
      this.candidateDepth = depth;
      this.candidateLine = this.line;
      return;
    }
    if (this.candidate.length === 0) return;
    if (bracket === '[' && depth === this.candidateDepth + 1 && ITEMS_KEY.test(this.candidate.join('').slice(-40))) {
      this.task = this.taskHead(this.candidate.join(''));
      this.itemsDepth = depth;
      this.candidate = [];
      return;
    }
    this.candidate.push(bracket);
  }

  private close(): void {
    const depth = this.stack.length;
    this.stack.pop();
    if (this.task !== undefined) {
      if (depth === this.itemsDepth + 1 && this.item.length > 0) {
        const item = this.parse(this.item.join(''), this.itemLine);
        this.item = [];
        this.sink.taskItem(item, this.task, this.itemLine);
      } else if (depth === this.itemsDepth) this.task = undefined;
      return;
    }
    if (this.candidate.length > 0 && depth === this.candidateDepth) {
      const record = this.parse(this.candidate.join(''), this.candidateLine);
      this.candidate = [];
      if (!Array.isArray(record.items)) this.sink.record(record, this.candidateLine);
    }
  }

  /** The task's fields before its `items` (`{"id": 7, "service": "x", "items": [`): its id and service. */
  private taskHead(text: string): { id: number | null; service: string | null } {
    const head = text.replace(ITEMS_KEY, '').replace(/,\s*$/, '');
    try {
      const task = JSON.parse(`${head}}`) as Record<string, unknown>;
      return {
        id: typeof task.id === 'number' ? task.id : null,
        service: typeof task.service === 'string' ? task.service : null,
      };
    } catch {
      return { id: null, service: null };
    }
  }

  private parse(text: string, line: number): Record<string, unknown> {
    let value: unknown;
    try {
      value = parseJsonExact(text);
    } catch {
      throw new InputError(
        `${this.name}:${line}: invalid JSON`,
        'Export the results again with `taskctl show -o json`.',
      );
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new InputError(`${this.name}:${line}: expected an object`);
    return value as Record<string, unknown>;
  }

  private invalid(what: string, atEnd = false): InputError {
    return new InputError(
      `${this.name}:${this.line}: expected ${what}${atEnd ? ' (the file ends inside a value)' : ''}`,
      'diff reads the json, ndjson and csv that `taskctl show` writes.',
    );
  }
}

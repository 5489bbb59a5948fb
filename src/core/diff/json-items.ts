/**
 * The items of a `show -o json` export read as the text streams in, one item's text at a time: the document is a
 * task (`{..., "items": [...]}`), a list of tasks, or a list of item records (`{"target": ...}`). A scanner follows
 * strings and nesting; an object that is the whole document or an element of the top-level list is a candidate: it
 * is kept as text and parsed when it closes (an item record), unless an `"items": [` opens inside it at its own level
 * (a task): then the text before it is parsed for the task's id and service, and each element of that list is cut
 * out and parsed on its own. Memory holds one item's text, never the document. After a task's items, the rest of its
 * object is kept (within the same cap) until the object closes, for a `total_items` written after them: `taskEnd`
 * then says how many items the task listed, so a side listing fewer than it has is refused as a task read by id is.
 * An element of either list that is not an object (a string, a number, a literal, a list) is refused where it starts,
 * naming the line and the element: it is no item, and reading past it would call the side shorter than it is.
 */
import { InputError } from '../../errors.js';
import { parseJsonExact } from '../../lib/exact-json.js';
import { MAX_SIDE_LINE, MAX_SIDE_LINE_TEXT } from './limits.js';

interface JsonItemSink {
  /** An item record of a list of records. */
  record: (record: Record<string, unknown>, line: number) => void;
  /** An item of a task (its id and service when they came before its `items`). */
  taskItem: (item: Record<string, unknown>, task: TaskHead, line: number) => void;
  /** A task's object has closed: its `total_items` (null when absent or not a number), and how many items it listed. */
  taskEnd?: (task: TaskHead & { total_items: number | null }, listed: number, line: number) => void;
}

interface TaskHead {
  id: number | null;
  service: string | null;
}

const totalOf = (task: Record<string, unknown>): number | null =>
  typeof task.total_items === 'number' ? task.total_items : null;

const ITEMS_KEY = /"items"\s*:\s*$/;

const NOT_AN_ITEM_HINT =
  'diff compares results files (`taskctl show -o json|ndjson|csv`), whose items are JSON objects with a target; a list of targets to create is not one.';

/** What a value is, from its first character: for the message about an element that is no object. */
function valueKind(c: number): string | undefined {
  if (c === 34) return 'a string';
  if (c === 91) return 'a list';
  if (c === 116) return 'true';
  if (c === 102) return 'false';
  if (c === 110) return 'null';
  if (c === 45 || (c >= 48 && c <= 57)) return 'a number';
  return undefined;
}

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
  private task: TaskHead | undefined;
  /** The current task's `total_items` when written before its items. */
  private taskTotal: number | null = null;
  /** After a task's items: the rest of its object so far (`{` then the text after the list), its depth, the task. */
  private tail: string[] | undefined;
  private tailDepth = 0;
  private tailTask: (TaskHead & { total_items: number | null; listed: number; line: number }) | undefined;
  private item: string[] = [];
  private itemLine = 0;
  private sawValue = false;
  /**
   * The depth of the list whose elements are being read bare (between them, outside any element): 1 in a top-level
   * list, the task's items list inside one, else 0. Anything there but a comma, a `{` or the list's end is refused.
   */
  private bareDepth = 0;
  /** Elements of the top-level list, and items of the current task, opened so far: to name the one refused. */
  private listElements = 0;
  private taskItems = 0;
  private taskLine = 0;
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
      if (c === 34) {
        if (this.stack.length <= this.bareDepth) throw this.bare(c);
        this.inString = true;
      } else if (c === 123 || c === 91) {
        this.keep(text.slice(from, i));
        from = i + 1;
        this.open(c === 123 ? '{' : '[');
      } else if (c === 125 || c === 93) {
        this.keep(text.slice(from, i + 1));
        from = i + 1;
        this.close();
      } else if (c > 32 && this.stack.length <= this.bareDepth && (c !== 44 || this.stack.length === 0))
        throw this.bare(c);
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
    if (this.tail !== undefined) this.tail.push(text);
    else if (this.task !== undefined && this.item.length > 0) this.item.push(text);
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
    if (bracket === '[' && this.bareDepth > 0 && this.stack.length === this.bareDepth) throw this.bare(91);
    this.stack.push(bracket);
    // Nesting outside an item is not a results file's; inside one, the item's own cap bounds it.
    if (this.stack.length > MAX_SIDE_LINE) throw this.invalid('an item, not nesting this deep');
    this.sawValue = true;
    const depth = this.stack.length;
    if (this.task !== undefined) {
      if (depth === this.itemsDepth + 1 && this.item.length === 0) {
        this.taskItems++;
        this.held = 0;
        this.item.push(bracket);
        this.itemLine = this.line;
      } else if (this.item.length > 0) this.item.push(bracket);
      return;
    }
    if (this.tail !== undefined) {
      this.tail.push(bracket);
      return;
    }
    if (depth === 1 && bracket === '[') this.bareDepth = 1;
    const isCandidate = bracket === '{' && (depth === 1 || (depth === 2 && this.stack[0] === '['));
    if (isCandidate) {
      if (depth === 2) this.listElements++;
      this.held = 0;
      this.candidate = ['{'];
      this.candidateDepth = depth;
      this.candidateLine = this.line;
      return;
    }
    if (this.candidate.length === 0) return;
    if (bracket === '[' && depth === this.candidateDepth + 1 && ITEMS_KEY.test(this.candidate.join('').slice(-40))) {
      const { total_items, ...head } = this.taskHead(this.candidate.join(''));
      this.task = head;
      this.taskTotal = total_items;
      this.taskLine = this.candidateLine;
      this.itemsDepth = depth;
      this.bareDepth = depth;
      this.taskItems = 0;
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
      } else if (depth === this.itemsDepth) {
        this.tailTask = { ...this.task, total_items: this.taskTotal, listed: this.taskItems, line: this.taskLine };
        this.tail = ['{'];
        this.tailDepth = depth - 1;
        this.held = 0;
        this.task = undefined;
        this.bareDepth = this.stack[0] === '[' ? 1 : 0;
      }
      return;
    }
    if (depth === 1) this.bareDepth = 0;
    if (this.tail !== undefined) {
      if (depth === this.tailDepth) this.endTask(this.tail.join(''));
      return;
    }
    if (this.candidate.length > 0 && depth === this.candidateDepth) {
      const record = this.parse(this.candidate.join(''), this.candidateLine);
      this.candidate = [];
      if (record.target === undefined && Array.isArray(record.items)) this.spelledTask(record, this.candidateLine);
      else this.sink.record(record, this.candidateLine);
    }
  }

  /** The task's object has closed: `total_items` from before its items, else from the text after them. */
  private endTask(tail: string): void {
    const task = this.tailTask;
    if (task === undefined) return;
    this.tail = undefined;
    this.tailTask = undefined;
    let total = task.total_items;
    if (total === null) {
      try {
        total = totalOf(JSON.parse(`{${tail.slice(1).replace(/^\s*,/, '')}`) as Record<string, unknown>);
      } catch {
        // Not JSON: no total read, as for a head that is not (the items themselves were read).
      }
    }
    this.sink.taskEnd?.({ id: task.id, service: task.service, total_items: total }, task.listed, task.line);
  }

  /**
   * A task whose `items` key the scanner did not see as it streamed (spelled with an escape, `"item\u0073"`): it was
   * read whole as one candidate, within the item cap, so its items are taken from it as the ndjson side takes them.
   */
  private spelledTask(record: Record<string, unknown>, line: number): void {
    const task = {
      id: typeof record.id === 'number' ? record.id : null,
      service: typeof record.service === 'string' ? record.service : null,
    };
    (record.items as unknown[]).forEach((item, index) => {
      if (typeof item !== 'object' || item === null || Array.isArray(item))
        throw new InputError(
          `${this.name}:${line}: ${itemOf(index + 1, task.id)} is ${kindOf(item)}, not a JSON object`,
          NOT_AN_ITEM_HINT,
        );
      this.sink.taskItem(item as Record<string, unknown>, task, line);
    });
    this.sink.taskEnd?.({ ...task, total_items: totalOf(record) }, (record.items as unknown[]).length, line);
  }

  /** A character outside any element where only a comma or an element's start may be (`c` starts a value, or not). */
  private bare(c: number): InputError {
    if (this.stack.length === 0) return this.invalid('a JSON array or object');
    const kind = valueKind(c);
    if (kind === undefined)
      return this.invalid(this.task === undefined ? 'an item (a JSON object)' : 'an item of the task');
    const what =
      this.task === undefined
        ? `element ${this.listElements + 1} of the list is ${kind}, not an item (a JSON object)`
        : `${itemOf(this.taskItems + 1, this.task.id)} is ${kind}, not a JSON object`;
    return new InputError(`${this.name}:${this.line}: ${what}`, NOT_AN_ITEM_HINT);
  }

  /** The task's fields before its `items` (`{"id": 7, "service": "x", "items": [`): its id and service. */
  private taskHead(text: string): TaskHead & { total_items: number | null } {
    const head = text.replace(ITEMS_KEY, '').replace(/,\s*$/, '');
    try {
      const task = JSON.parse(`${head}}`) as Record<string, unknown>;
      return {
        id: typeof task.id === 'number' ? task.id : null,
        service: typeof task.service === 'string' ? task.service : null,
        total_items: totalOf(task),
      };
    } catch {
      return { id: null, service: null, total_items: null };
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

function itemOf(index: number, task: number | null): string {
  return `item ${index} of ${task === null ? 'a task' : `task ${task}`}`;
}

/** What a parsed value that is no object is, in the words of valueKind. */
export function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  return typeof value === 'number' || typeof value === 'object' ? 'a number' : 'a string';
}

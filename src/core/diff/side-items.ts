/**
 * One side of `taskctl diff` read into a sorted side (sort.ts), streamed: a task read through the one client,
 * or a file's bytes decoded and split as they arrive (ndjson and csv by line, json by item: json-items.ts).
 */
import type { Task } from '../../api/schemas.js';
import { InputError, InterruptedError, MalformedResponseError } from '../../errors.js';
import { requireAllItems } from '../job/filter.js';
import { isTerminal, itemCounts, unlistedItemsNote } from '../../lib/task-state.js';
import { formatCount } from '../../output/numbers.js';
import { counted } from '../../output/plural.js';
import type { ItemLike } from '../../output/flatten.js';
import { CsvRecords } from '../items/csv.js';
import { isUtf8 } from 'node:buffer';
import { ChunkDecoder, DecodeFailure, sniffEncoding } from '../../lib/items/decode.js';
import { LineSplitter } from '../items/lines.js';
import { parseJsonExact } from '../../lib/exact-json.js';
import { JsonItemScanner, kindOf } from './json-items.js';
import { MAX_SIDE_LINE, MAX_SIDE_LINE_TEXT, sideDecodeError } from './limits.js';
import { LineKind, scanLine, ScannedLine } from './fast-line.js';
import { asciiTargetHash, type SortedSide } from './sort.js';
import type { OpenedFile } from './source.js';
import { fromCsvRow, fromRecord, fromTaskItem, type CompareMode, type DiffItem } from './values.js';

const EXPORT_HINT = 'diff reads the json, ndjson and csv that `taskctl show` writes: each item has a target.';

const ASCII = /^[\x00-\x7f]*$/;

/** What is known of a side once read: its items sorted, the fields and services it has. */
export class SideItems {
  /** Every field name an item of this side has (null values included, in json mode). */
  readonly fields = new Set<string>();
  readonly services = new Set<string>();
  /** Tasks read from the service that have not finished: their items without a result yet, of how many. */
  readonly unfinished: Array<{ id: number; status: string; waiting: number; total: number }> = [];

  constructor(
    readonly name: string,
    readonly sorted: SortedSide,
    readonly mode: CompareMode,
  ) {}

  /** Targets are matched in Unicode NFC: `café` typed precomposed or with a combining accent is one item. */
  add(item: DiffItem): void {
    if (!ASCII.test(item.target)) item.target = item.target.normalize('NFC');
    this.sorted.add(item);
  }

  /** A record of an ndjson or json export; `line` names it when it has no target. */
  record(record: Record<string, unknown>, line: number): void {
    if (typeof record.target !== 'string') {
      throw new InputError(`${this.name}:${line}: no "target" field`, EXPORT_HINT);
    }
    this.add(fromRecord(record, this.mode, undefined, this.fields));
  }

  /** The items of a task (from the API, or a task on one line of an ndjson side: `line`). */
  task(task: Pick<Task, 'id' | 'items'> & { service?: string | null }, line?: number): void {
    if (typeof task.service === 'string') this.services.add(task.service);
    (task.items ?? []).forEach((item: unknown, index) => this.taskItem(item, task.id, line, index + 1));
  }

  /**
   * A task of a file side has been read: one that lists fewer items than its `total_items` is refused with exit 8, in
   * the words and for the reason of a task read by id (`requireAllItems`): the items it leaves out were read on
   * neither side, so "the same" would be a guess. No `total_items` (a hand-made file): nothing to check.
   */
  listedInFull(task: { id: number | null; total_items: number | null }, listed: number, line: number): void {
    if (task.total_items === null) return;
    const note = unlistedItemsNote({ id: task.id ?? 0, total_items: task.total_items, items: { length: listed } });
    if (note === undefined) return;
    throw new MalformedResponseError(
      `${this.name}:${line}: ${task.id === null ? note.replace(/^task 0 /, 'a task ') : note}: diff cannot tell whether the two sides are the same`,
      task.id === null ? EXPORT_HINT : `See what the service sends: taskctl show ${task.id} -o json`,
    );
  }

  /** An item of a task; `index` (from 1) names one that is no object. */
  taskItem(item: unknown, task: number | null, line?: number, index?: number): void {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      const of = typeof task === 'number' ? `task ${task}` : 'a task';
      const which = index === undefined ? `an item of ${of}` : `item ${index} of ${of}`;
      throw new InputError(
        `${this.name}${line === undefined ? '' : `:${line}`}: ${which} is ${kindOf(item)}, not a JSON object`,
        EXPORT_HINT,
      );
    }
    if (typeof (item as Record<string, unknown>).target !== 'string') {
      throw new InputError(
        `${this.name}${line === undefined ? '' : `:${line}`}: an item with no "target" field`,
        EXPORT_HINT,
      );
    }
    this.add(fromTaskItem(item as ItemLike, task, this.mode, this.fields));
  }
}

/**
 * A task read through the one client: the same errors as `show` (a missing task is exit 5). docs/openapi.json shows
 * items in GET /tasks/{id}, but a server may leave them out, or list fewer than the task has: the side is then unknown,
 * and "the same" would be a guess (exit 8, docs/commands.md#taskctl-diff-a-b).
 */
export function addTask(side: SideItems, task: Task): void {
  requireAllItems(task, 'diff cannot tell whether the two sides are the same');
  if (!isTerminal(task)) {
    const { total, completed = 0, failed = 0 } = itemCounts(task);
    side.unfinished.push({ id: task.id, status: task.status, waiting: total - completed - failed, total });
  }
  side.task(task);
}

/**
 * A side read while some of its tasks still run is compared as it is (as a job not finished is, with the tasks it
 * has): its items without a result yet may show as changes, so stderr says so, and how to wait for them first.
 */
export function unfinishedNote(side: SideItems, waitCommand: string): string | undefined {
  const [only, ...more] = side.unfinished;
  if (only === undefined) return undefined;
  const waiting = side.unfinished.reduce((sum, task) => sum + task.waiting, 0);
  const total = side.unfinished.reduce((sum, task) => sum + task.total, 0);
  const items = `${formatCount(waiting)} of ${more.length === 0 ? 'its' : 'their'} ${counted(total, 'item')} ${waiting === 1 ? 'has' : 'have'} no result yet`;
  const shown = waiting === 1 ? 'it may show as a change' : 'they may show as changes';
  const tasks =
    more.length === 0
      ? `task ${only.id} is still ${only.status}`
      : `${formatCount(side.unfinished.length)} tasks of ${side.name} are still running (${listed(side.unfinished.map((task) => task.id))})`;
  return `${tasks}: ${items}, so ${shown} (wait for ${more.length === 0 ? 'it' : 'them'} first: ${waitCommand})`;
}

function listed(ids: readonly number[]): string {
  return ids.length > 5 ? `${ids.slice(0, 5).join(', ')}, …` : ids.join(', ');
}

/**
 * Reads an ndjson, csv or json file side to its end; stops with exit 130 on Ctrl-C. An ndjson side compared as JSON
 * is read from its bytes (fast-line.ts) unless `exact`: the exact path reads every line as text and parses it.
 */
export async function readFile(file: OpenedFile, side: SideItems, signal: AbortSignal, exact = false): Promise<void> {
  if (file.kind === 'ndjson' && side.mode === 'json' && !exact) return readNdjsonBytes(file, side, signal);
  const feed = textFeed(file, side, 0, false);
  for await (const chunk of file.chunks) {
    checkSignal(signal);
    feed.push(chunk);
  }
  feed.end();
}

function checkSignal(signal: AbortSignal): void {
  if (signal.aborted) throw new InterruptedError('interrupted', 'Nothing was compared; run the same diff again.');
}

interface ByteFeed {
  push: (chunk: Buffer) => void;
  end: () => void;
}

/** The bytes of a side decoded and split as text, its lines numbered after `linesBefore`. */
function textFeed(file: OpenedFile, side: SideItems, linesBefore: number, midFile: boolean): ByteFeed {
  const parser = fileParser(file, side, linesBefore);
  const decoder = new ChunkDecoder();
  // Mid-file, bytes that look like a BOM are text: a BOM first says so (UTF-8), and is removed.
  let first = midFile;
  const decode = (work: () => string): void => {
    try {
      parser.push(work());
    } catch (error) {
      if (error instanceof DecodeFailure) {
        parser.push(error.prefix); // the lines before the fault count, and may hold an earlier error
        throw sideDecodeError(file.name, parser.line(), error.kind);
      }
      throw error;
    }
  };
  return {
    push: (chunk) => {
      const bytes = first ? Buffer.concat([UTF8_BOM, chunk]) : chunk;
      first = false;
      decode(() => decoder.decode(bytes));
    },
    end: () => {
      decode(() => decoder.end());
      parser.end();
    },
  };
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * An ndjson side read as bytes: whole lines at a time, each checked as text once (UTF-8, no NUL, no CR) and each
 * line scanned (fast-line.ts) or, when unusual, handed as text to the exact parser. Bytes the checks refuse (not
 * text, a CR, a line past the cap) and everything after them go through the text path, which says what is wrong
 * where, as for any side.
 */
async function readNdjsonBytes(file: OpenedFile, side: SideItems, signal: AbortSignal): Promise<void> {
  const exact = ndjsonLine(file.name, side).line;
  const scan = new ScannedLine();
  const keys = new KeyNames(side.fields);
  // The unfinished last line, in the pieces it arrived in (joined once, when its end comes).
  let carry: Buffer[] = [];
  let carryLength = 0;
  let lines = 0;
  let started = false;
  let text: ByteFeed | undefined;
  const lineAt = (bytes: Buffer, start: number, end: number): void => {
    const kind = scanLine(bytes, start, end, scan);
    if (kind === LineKind.Item) {
      keys.add(scan);
      side.sorted.addScanned(asciiTargetHash(bytes, scan.targetStart + 1, scan.targetEnd - 1), scan);
    } else if (kind === LineKind.Exact) exact(bytes.toString('utf8', start, end), lines);
  };
  /** Whole lines `0..last` of `bytes` (its last line break at `last`): -1 when taken, else where the text path starts. */
  const wholeLines = (bytes: Buffer, last: number): number => {
    if (!plainText(bytes.subarray(0, last + 1))) return 0;
    for (let at = 0; at <= last;) {
      const end = bytes.indexOf(10, at);
      if (end - at > MAX_SIDE_LINE) return at;
      lines++;
      lineAt(bytes, at, end);
      at = end + 1;
    }
    return -1;
  };
  const toText = (...rest: Buffer[]): void => {
    text = textFeed(file, side, lines, true);
    for (const bytes of rest) text.push(bytes);
    carry = [];
    carryLength = 0;
  };
  for await (const chunk of file.chunks) {
    checkSignal(signal);
    if (text !== undefined) {
      text.push(chunk);
      continue;
    }
    let bytes = chunk;
    if (!started) {
      started = true;
      const bom = sniffEncoding(bytes, false);
      if (bom?.encoding !== 'utf8') {
        text = textFeed(file, side, 0, false);
        text.push(bytes);
        continue;
      }
      bytes = bytes.subarray(bom.bomLength);
    }
    // The line the last chunk left unfinished, completed by this one's first line (the rest is not copied).
    if (carryLength > 0) {
      const first = bytes.indexOf(10);
      if (first === -1) {
        carry.push(bytes);
        carryLength += bytes.length;
        if (carryLength > MAX_SIDE_LINE) toText(...carry);
        continue;
      }
      const head = Buffer.concat([...carry, bytes.subarray(0, first + 1)]);
      carry = [];
      carryLength = 0;
      const failed = wholeLines(head, head.length - 1);
      if (failed !== -1) {
        toText(head.subarray(failed), bytes.subarray(first + 1));
        continue;
      }
      bytes = bytes.subarray(first + 1);
    }
    const last = bytes.lastIndexOf(10);
    const failed = last === -1 ? -1 : wholeLines(bytes, last);
    if (failed !== -1) toText(bytes.subarray(failed));
    else {
      carry = last + 1 < bytes.length ? [bytes.subarray(last + 1)] : [];
      carryLength = bytes.length - last - 1;
      if (carryLength > MAX_SIDE_LINE) toText(...carry);
    }
  }
  if (text === undefined && carryLength > 0) {
    const rest = Buffer.concat(carry);
    if (rest.length <= MAX_SIDE_LINE && plainText(rest)) {
      lines++;
      lineAt(rest, 0, rest.length);
    } else {
      text = textFeed(file, side, lines, true);
      text.push(rest);
    }
  }
  text?.end();
}

/** Bytes the fast path takes as they are: valid UTF-8 without NUL or CR (the text path names those). */
function plainText(bytes: Buffer): boolean {
  return bytes.indexOf(0) === -1 && bytes.indexOf(13) === -1 && isUtf8(bytes);
}

/** The field names of scanned lines added to a side's: a line's keys are decoded only when they differ from the last's. */
class KeyNames {
  private last: string[] = [];

  constructor(private readonly fields: Set<string>) {}

  add(scan: ScannedLine): void {
    const { buf, members } = scan;
    for (let m = 0; m < scan.memberCount; m++) {
      const start = (members[m * 4] ?? 0) + 1;
      const end = (members[m * 4 + 1] ?? 0) - 1;
      const known = this.last[m];
      if (known?.length === end - start && sameAscii(known, buf, start)) continue;
      const name = buf.toString('utf8', start, end);
      this.fields.add(name);
      this.last[m] = name;
    }
  }
}

function sameAscii(text: string, buf: Buffer, at: number): boolean {
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) !== buf[at + k]) return false;
  return true;
}

interface TextParser {
  push: (text: string) => void;
  end: () => void;
  line: () => number;
}

function fileParser(file: OpenedFile, side: SideItems, linesBefore: number): TextParser {
  if (file.kind === 'json') {
    const scanner = new JsonItemScanner(file.name, {
      record: (record, line) => side.record(record, line),
      taskItem: (item, task, line) => {
        if (task.service !== null) side.services.add(task.service);
        side.taskItem(item, task.id, line);
      },
      taskEnd: (task, listed, line) => side.listedInFull(task, listed, line),
    });
    return { push: (text) => scanner.push(text), end: () => scanner.end(), line: () => scanner.currentLine };
  }
  const splitter = new LineSplitter(MAX_SIDE_LINE, (line) => {
    throw new InputError(
      `${file.name}:${line + linesBefore}: line is longer than ${MAX_SIDE_LINE_TEXT}; stopped reading`,
      EXPORT_HINT,
    );
  });
  const onLine = file.kind === 'csv' ? csvLines(file.name, side) : ndjsonLine(file.name, side);
  const handle = (text: string, line: number) => onLine.line(text, line + linesBefore);
  return {
    push: (text) => splitter.push(text, handle),
    end: () => {
      splitter.end(handle);
      onLine.end();
    },
    line: () => splitter.currentLine + linesBefore,
  };
}

function ndjsonLine(name: string, side: SideItems) {
  return {
    line: (text: string, line: number): void => {
      if (text.trim() === '') return;
      let value: unknown;
      try {
        value = parseJsonExact(text);
      } catch {
        throw new InputError(`${name}:${line}: invalid JSON`, EXPORT_HINT);
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new InputError(`${name}:${line}: expected a JSON object`, EXPORT_HINT);
      const record = value as Record<string, unknown>;
      // A task on one line (`show -o json` of one task, compacted): its items.
      if (record.target === undefined && Array.isArray(record.items)) {
        side.task(record as unknown as Task, line);
        side.listedInFull(
          {
            id: typeof record.id === 'number' ? record.id : null,
            total_items: typeof record.total_items === 'number' ? record.total_items : null,
          },
          record.items.length,
          line,
        );
        return;
      }
      side.record(record, line);
    },
    end: () => undefined,
  };
}

function csvLines(name: string, side: SideItems) {
  let header: string[] | undefined;
  let targetAt = -1;
  const records = new CsvRecords({
    name,
    maxLineLength: MAX_SIDE_LINE,
    record: (fields, line) => {
      if (header === undefined) {
        header = fields.map((field) => field.trim());
        targetAt = header.indexOf('target');
        if (targetAt === -1) throw new InputError(`${name}:${line}: no "target" column in the csv header`, EXPORT_HINT);
        const twice = header.find((column, index) => header?.indexOf(column) !== index);
        if (twice !== undefined)
          throw new InputError(
            `${name}:${line}: the csv header names the column "${twice}" twice`,
            'Each column of a results file has one name; export it again with `taskctl show -o csv`.',
          );
        for (const column of header) if (column !== 'task' && column !== 'target') side.fields.add(column);
        return;
      }
      if (fields.length === 1 && fields[0] === '') return;
      if ((fields[targetAt] ?? '') === '')
        throw new InputError(`${name}:${line}: a row with no target (its "target" cell is empty)`, EXPORT_HINT);
      side.add(fromCsvRow(header, fields, targetAt));
    },
  });
  return { line: records.line, end: () => records.end() };
}

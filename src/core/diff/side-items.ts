/**
 * One side of `taskctl diff` read into a sorted side (sort.ts), streamed: a task read through the one client,
 * or a file's bytes decoded and split as they arrive (ndjson and csv by line, json by item: json-items.ts).
 */
import type { Task } from '../../api/schemas.js';
import { InputError, InterruptedError } from '../../errors.js';
import type { ItemLike } from '../../output/flatten.js';
import type { Printer } from '../../output/printer.js';
import { CsvRecords } from '../items/csv.js';
import { ChunkDecoder, DecodeFailure } from '../../lib/items/decode.js';
import { LineSplitter } from '../items/lines.js';
import { parseJsonExact } from './exact-json.js';
import { JsonItemScanner } from './json-items.js';
import { MAX_SIDE_LINE, MAX_SIDE_LINE_TEXT, sideDecodeError } from './limits.js';
import type { SortedSide } from './sort.js';
import type { OpenedFile } from './source.js';
import { fromCsvRow, fromRecord, fromTaskItem, type CompareMode, type DiffItem } from './values.js';

const EXPORT_HINT = 'diff reads the json, ndjson and csv that `taskctl show` writes: each item has a target.';

const ASCII = /^[\x00-\x7f]*$/;

/** What is known of a side once read: its items sorted, the fields and services it has. */
export class SideItems {
  /** Every field name an item of this side has (null values included, in json mode). */
  readonly fields = new Set<string>();
  readonly services = new Set<string>();

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

  /** The items of a task (from the API or a json export). */
  task(task: Pick<Task, 'id' | 'items'> & { service?: string | null }): void {
    if (typeof task.service === 'string') this.services.add(task.service);
    for (const item of task.items ?? []) this.taskItem(item, task.id);
  }

  taskItem(item: Record<string, unknown>, task: number | null, line?: number): void {
    if (typeof item.target !== 'string') {
      throw new InputError(
        `${this.name}${line === undefined ? '' : `:${line}`}: an item with no "target" field`,
        EXPORT_HINT,
      );
    }
    this.add(fromTaskItem(item as unknown as ItemLike, task, this.mode, this.fields));
  }
}

/** A task read through the one client: the same errors as `show` (a missing task is exit 5). */
export function addTask(side: SideItems, task: Task, printer: Printer): void {
  // docs/openapi.json shows items in GET /tasks/{id}, but a server may leave them out: say so, not compare nothing.
  if (task.items === undefined) printer.warn(`the service sent no item results for task ${task.id}`);
  side.task(task);
}

/** Reads an ndjson, csv or json file side to its end; stops with exit 130 on Ctrl-C. */
export async function readFile(file: OpenedFile, side: SideItems, signal: AbortSignal): Promise<void> {
  const parser = fileParser(file, side);
  const decoder = new ChunkDecoder();
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
  for await (const chunk of file.chunks) {
    if (signal.aborted) throw new InterruptedError('interrupted', 'Nothing was compared; run the same diff again.');
    decode(() => decoder.decode(chunk));
  }
  decode(() => decoder.end());
  parser.end();
}

interface TextParser {
  push: (text: string) => void;
  end: () => void;
  line: () => number;
}

function fileParser(file: OpenedFile, side: SideItems): TextParser {
  if (file.kind === 'json') {
    const scanner = new JsonItemScanner(file.name, {
      record: (record, line) => side.record(record, line),
      taskItem: (item, task, line) => {
        if (task.service !== null) side.services.add(task.service);
        side.taskItem(item, task.id, line);
      },
    });
    return { push: (text) => scanner.push(text), end: () => scanner.end(), line: () => scanner.currentLine };
  }
  const splitter = new LineSplitter(MAX_SIDE_LINE, (line) => {
    throw new InputError(
      `${file.name}:${line}: line is longer than ${MAX_SIDE_LINE_TEXT}; stopped reading`,
      EXPORT_HINT,
    );
  });
  const onLine = file.kind === 'csv' ? csvLines(file.name, side) : ndjsonLine(file.name, side);
  return {
    push: (text) => splitter.push(text, onLine.line),
    end: () => {
      splitter.end(onLine.line);
      onLine.end();
    },
    line: () => splitter.currentLine,
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
        side.task(record as unknown as Task);
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

/**
 * What `webhook listen` prints of each event: the body as delivered (json/ndjson), a row (tsv/csv: EVENT_COLUMNS,
 * documented in the command's help), or a line for people; duplicates marked or left to the log.
 */
import type { IO } from '../output/io.js';
import type { Column, Printer, StyledPart } from '../output/printer.js';
import type { ReceivedEvent } from './received.js';
import { eventLineFormatter, type EventLine } from '../output/event-line.js';
import { countsRoom, countsText } from '../output/task-columns.js';
import { compactJsonText } from '../lib/json-text.js';

/** A scalar field of a received body by path (`task.id`), whatever its shape; undefined when absent or not a scalar. */
function field(body: unknown, ...path: string[]): string | number | boolean | undefined {
  let value: unknown = body;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
}

/** tsv/csv columns of `webhook listen` (documented in its help); empty cells where a body lacks the field. */
const EVENT_COLUMNS: Array<Column<ReceivedEvent>> = [
  { header: 'timestamp', value: (e) => field(e.body, 'timestamp') },
  { header: 'event', value: (e) => e.name },
  { header: 'id', value: (e) => e.taskId },
  { header: 'service', value: (e) => field(e.body, 'task', 'service') },
  { header: 'completed_items', value: (e) => field(e.body, 'task', 'completed_items') },
  { header: 'failed_items', value: (e) => field(e.body, 'task', 'failed_items') },
  { header: 'total_items', value: (e) => field(e.body, 'task', 'total_items') },
];

/** Prints an event; true when it is now on the screen the log is read on (the listener then logs no status line). */
export type PrintEvent = (received: ReceivedEvent, note: { duplicate: boolean }) => boolean;

/** What the printer needs of a run: where events go, and whether stdout and stderr are one terminal. */
export interface EventPrinterContext {
  readonly printer: Printer;
  readonly io: IO;
}

/**
 * Each event once on stdout. A duplicate is shown only in the human format (marked); machine formats print each event
 * exactly once, and the duplicate goes to the log on stderr. When stdout and stderr are one terminal, an event line
 * printed there is the only line about it (a person sees each event once); piped, stderr keeps every status line.
 */
export function eventPrinter(ctx: EventPrinterContext): { print: PrintEvent; end: () => Promise<void> } {
  const printer = ctx.printer;
  const oneScreen = ctx.io.stdout.isTTY === true && ctx.io.stderr.isTTY === true;
  if (printer.format === 'json' || printer.format === 'ndjson') {
    // The body exactly as delivered, unknown fields included: as received when it is one line (no copy of a big
    // body is made), compacted otherwise, never parsed and written again (an id beyond 2^53 keeps its digits).
    return {
      print: (received, { duplicate }) => {
        if (duplicate) return false;
        printer.line(/[\r\n]/.test(received.raw) ? compactJsonText(received.raw.trim()) : received.raw.trim());
        return oneScreen;
      },
      end: async () => {},
    };
  }
  if (printer.format === 'tsv' || printer.format === 'csv') {
    const rows = printer.stream(EVENT_COLUMNS);
    return {
      print: (received, { duplicate }) => {
        if (duplicate) return false;
        rows.write([received]);
        return oneScreen;
      },
      end: () => rows.end(),
    };
  }
  const eventLine = eventLineFormatter(() => printer.lineWidth);
  return {
    print({ event, body, name, taskId, synthesised, simulated }, { duplicate }) {
      const marks: StyledPart[] = [];
      if (synthesised) marks.push({ text: '  (synthesised)', style: 'cyan' });
      if (simulated !== undefined) marks.push({ text: '  (simulated)', style: 'cyan' });
      if (duplicate) marks.push({ text: '  (duplicate, not handed on again)', style: 'dim' });
      const at = field(body, 'timestamp');
      // Not an event of docs/openapi.json (the listener warned): what it says about itself, then the body as it came.
      const line: EventLine = event
        ? {
            at: event.timestamp,
            id: event.task.id,
            service: event.task.service,
            status: event.event,
            task: event.task,
            room: countsRoom(event.task.total_items),
            rest: countsText({
              total: event.task.total_items,
              completed: event.task.completed_items,
              failed: event.task.failed_items,
            }),
            ...(event.event === 'failed' && { reason: event.task.error_message }),
          }
        : {
            at: at === undefined ? undefined : String(at),
            id: taskId,
            service: undefined,
            status: name ?? 'event',
            rest: JSON.stringify(body),
          };
      printer.styledLine(eventLine({ ...line, marks }));
      return oneScreen;
    },
    end: async () => {},
  };
}

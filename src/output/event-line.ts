/**
 * The one human line of a task's event, shared by `watch` and `webhook listen` so a person reads both the same way:
 * `2026-11-25T16:58:47Z  task 41  domain_check_availability  completed  2/3, 1 failed`. The time is ISO UTC without
 * milliseconds; id, service and status are aligned by the widest seen so far (ids and statuses with room kept from the
 * first line; at a terminal, services and counts too). On a terminal too narrow for the line, the id column first
 * gives up the room kept for six digits (as wide as the ids seen), then the service column gives way (names cut with `…`) so the counts keep their room on the line, set once so the columns do not move (but for a longer id,
 * status or service name than any kept room for); where even a cut service leaves the counts no room (a long id, a
 * narrow terminal), the line is broken after the id and the rest goes on under it. The rest is never cut; counts wider
 * than the room left for them (`1/5, 4 not listed` at 80 columns) go on under their column, broken between two counts.
 */
import { WRAPPED_INDENT, type StyledPart } from './printer.js';
import { KNOWN_TASK_STATUSES, type TaskStateFields } from '../lib/task-state.js';
import { neutralise } from '../lib/sanitize.js';
import { parseTimestamp } from '../lib/timestamp.js';
import { isoSeconds } from './times.js';
import { textWidth, truncateText } from './width.js';

export interface EventLine {
  /** Epoch ms, or the time as received (reformatted when it is an ISO timestamp, else shown as it came). */
  at: number | string | undefined;
  id: number | string | undefined;
  service: string | undefined;
  /** The status or the event's name, coloured as a status (by the task's tone when `task` is given). */
  status: string;
  task?: TaskStateFields | undefined;
  /** What follows the status: item counts, a reason, a body. */
  rest: string;
  /**
   * The columns `rest` may need on this task's lines (its counts at their widest: `countsRoom`), kept for it on a narrow
   * terminal while the service column is still set (it never narrows for a later line); what goes beyond (an error
   * message, a body, counts of a task larger than the first ones) is wrapped by the printer.
   */
  room?: number | undefined;
  /**
   * Why a task failed (its `error_message`): after the counts as `: reason` off a terminal, whole; at a terminal on a
   * row of its own under the line, indented, cut with `…` to that row's width (the line's columns stay as they are).
   */
  reason?: string | undefined;
  /** Marks after the line (`(duplicate …)`), already styled. */
  marks?: StyledPart[] | undefined;
}

/** The time column: ISO UTC to the second, or `-` when unknown. */
function eventTime(at: number | string | undefined): string {
  if (typeof at === 'number') return isoSeconds(at);
  const ms = parseTimestamp(at);
  return ms === undefined ? (at ?? '-') : isoSeconds(ms);
}

/**
 * Room kept from the first line, so lines printed as events arrive line up without knowing what comes: ids up to six
 * digits ("task 7" above "task 210") and every status the service names.
 */
const MIN_ID_WIDTH = 6;
const MIN_STATUS_WIDTH = Math.max(...KNOWN_TASK_STATUSES.map((status) => status.length));

/** The narrowest the service column gets on a narrow terminal (`email_verify` whole). */
const SERVICE_MIN = 12;

/**
 * The service column a task with more items than COUNTS_ROOM allows for never takes from while the line has room for
 * it: names cut after their second word (`domain_check_…`, `domain_whois_…`). Only the first COUNTS_ROOM columns of
 * counts narrow it further, down to SERVICE_MIN.
 */
const SERVICE_CUT = 14;

/**
 * At a terminal, room kept from the first line, so the columns do not move when a longer service or a task with more
 * items comes later: service names up to the longest the contract shows (`domain_check_availability`), counts up to a
 * plausible `12/12, 12 failed` or `10,000/10,000`. Wider counts go on further right, wrapped by the printer once they
 * pass the line's end, rather than narrow the service column under lines already printed.
 */
const SERVICE_ROOM = 25;
const COUNTS_ROOM = 16;

/**
 * The narrowest a service name is cut to (`domain_…`, `email_v…`) so that a line whose id is long (ten digits and more)
 * keeps its counts on it, or, on a terminal too narrow for the line, on the line it continues on.
 */
const SERVICE_TIGHT = 8;

/** Between two columns. */
const GAP = '  ';

/** The time and id columns, the id padded to `idWidth`. */
function headWith(time: string, id: string, idWidth: number): string {
  return `${time}${GAP}task ${id.padEnd(idWidth)}${GAP}`;
}

/**
 * A formatter that keeps the column widths of the lines it made (they only grow). With `lineWidth` (the columns a line
 * may use on a terminal), the service column is set from the first line to what the width leaves once the counts have
 * their room (`COUNTS_ROOM`, or the room a task asked for, taken from the service column only down to SERVICE_CUT), names cut
 * with `…`, and it never narrows afterwards; `lineWidth` given as a function is read at each line (a resized
 * terminal). At least SERVICE_MIN: a line with less room (a long id, a narrow terminal) keeps for the counts only the
 * room its tasks need (`room`), the service cut down to SERVICE_TIGHT; with less still, it is broken after the id
 * (`StyledPart.lineBreak`) and the service cut so that the rest fits under it; narrower than that, the printer wraps
 * the line at its spaces.
 */
export function eventLineFormatter(lineWidth?: number | (() => number | undefined)): (line: EventLine) => StyledPart[] {
  const width = { id: MIN_ID_WIDTH, idSeen: 0, service: 0, status: MIN_STATUS_WIDTH, room: 0, column: 0 };
  return (line) => {
    // Widths are measured on the text as printed (server text neutralised), so padding matches what is seen.
    const id = line.id === undefined ? '(no id)' : neutralise(String(line.id));
    const service = neutralise(line.service ?? '-');
    const status = neutralise(line.status);
    const time = eventTime(line.at);
    width.id = Math.max(width.id, id.length);
    width.idSeen = Math.max(width.idSeen, id.length);
    width.service = Math.max(width.service, service.length);
    width.status = Math.max(width.status, status.length);
    width.room = Math.max(width.room, line.room ?? 0);
    // What the service column and the counts share of the line, at the terminal's width now (read at each line: it
    // may have been resized since the last one).
    const columns = typeof lineWidth === 'function' ? lineWidth() : lineWidth;
    const freeWith = (idWidth: number) =>
      columns === undefined
        ? undefined
        : columns - textWidth(headWith(time, id, idWidth)) - 2 * GAP.length - width.status;
    // The id column gives up its kept room (six digits) before the service is cut: as wide as the ids seen then.
    const roomy = freeWith(width.id);
    const wanted = Math.max(width.service, SERVICE_ROOM) + Math.max(width.room, COUNTS_ROOM);
    const idWidth = roomy !== undefined && roomy < wanted ? width.idSeen : width.id;
    const head = headWith(time, id, idWidth);
    const free = freeWith(idWidth);
    let serviceWidth = width.service;
    /** The line cannot fit: broken after the id, the rest under it (`StyledPart.lineBreak`). */
    let broken = false;
    if (columns !== undefined && free !== undefined && free >= SERVICE_MIN + COUNTS_ROOM) {
      const floor = Math.min(SERVICE_CUT, free - COUNTS_ROOM);
      const room = Math.min(Math.max(width.room, COUNTS_ROOM), free - floor);
      width.column = Math.max(width.column, Math.min(Math.max(width.service, SERVICE_ROOM), free - room));
      serviceWidth = width.column;
    } else if (columns !== undefined && free !== undefined) {
      // A long id, or a narrow terminal: the counts keep only the room the tasks so far need, the service gives way
      // down to SERVICE_TIGHT. Narrower still, the line cannot fit: it is broken after the id, and the service gives
      // way so that the rest (service, status, counts) fits whole under it, the columns aligned from line to line.
      const onLine = free - width.room;
      const under = columns - WRAPPED_INDENT.length - 2 * GAP.length - width.status - width.room;
      broken = onLine < SERVICE_TIGHT && under >= SERVICE_TIGHT;
      const cut = broken ? under : onLine;
      if (cut >= SERVICE_TIGHT) {
        width.column = Math.max(width.column, Math.min(Math.max(width.service, SERVICE_ROOM), cut));
        serviceWidth = width.column;
      }
    }
    const shown = service.length > serviceWidth ? truncateText(service, serviceWidth) : service;
    const parts: StyledPart[] = [
      ...(broken ? [{ text: head.trimEnd() }, { text: GAP, lineBreak: true as const }] : [{ text: head }]),
      { text: `${shown.padEnd(serviceWidth)}${GAP}` },
      { text: status, status: line.task ?? true },
    ];
    const pad = `${' '.repeat(width.status - status.length)}${GAP}`;
    // Counts wider than the room left on the line go on under their own column, broken between two counts.
    const at = textWidth(`${head}${shown.padEnd(serviceWidth)}${GAP}`) + width.status + GAP.length;
    const rows = broken || line.room === undefined ? undefined : countsRows(line.rest, columns, at);
    if (rows !== undefined) {
      parts.push({ text: `${pad}${rows[0] ?? ''}` });
      const under = ' '.repeat(Math.max(0, at - WRAPPED_INDENT.length));
      for (const row of rows.slice(1)) parts.push({ text: ' ', lineBreak: true }, { text: `${under}${row}` });
    } else if (line.rest !== '') parts.push({ text: `${pad}${line.rest}`.trimEnd() });
    return [...parts, ...(line.marks ?? []), ...reasonParts(line.reason, columns)];
  };
}

/** A failed task's reason: `: reason` on the line off a terminal; at one, a row of its own cut to its width. */
function reasonParts(reason: string | undefined, columns: number | undefined): StyledPart[] {
  const text = reason === undefined ? '' : neutralise(reason).trim();
  if (text === '') return [];
  if (columns === undefined) return [{ text: `: ${text}` }];
  return [{ text: ' ', lineBreak: true }, { text: truncateText(text, Math.max(1, columns - WRAPPED_INDENT.length)) }];
}

/** What `countsText` writes (output/task-columns.ts): `1/5`, then `, N failed` and `, N not listed`. */
const COUNTS = /^[\d,]+\/[\d,]+(?:, [\d,]+ (?:failed|not listed))*$/;

/**
 * Counts (`1/5, 1 failed, 3 not listed`) that start at column `at` and do not fit in `columns`, as the rows they are
 * shown in: broken after a count's comma, each row as many counts as fit (at least one), the next rows under the
 * first. Undefined when they fit, off a terminal, or when even one count alone would not fit there (the printer then
 * wraps the line at its spaces).
 */
function countsRows(rest: string, columns: number | undefined, at: number): string[] | undefined {
  if (columns === undefined || at + textWidth(rest) <= columns || !COUNTS.test(rest)) return undefined;
  const counts = rest.split(', ');
  if (counts.length < 2) return undefined;
  const room = columns - at;
  const rows: string[] = [];
  for (const [index, count] of counts.entries()) {
    const text = index < counts.length - 1 ? `${count},` : count;
    const last = rows.length - 1;
    if (last >= 0 && textWidth(`${rows[last] ?? ''} ${text}`) <= room) rows[last] = `${rows[last] ?? ''} ${text}`;
    else if (textWidth(text) > room) return undefined;
    else rows.push(text);
  }
  return rows;
}

/**
 * An ndjson line of `diff` read from its bytes, without JSON.parse and re-encoding, when it is the plain shape
 * `show -o ndjson` writes: one flat object on one line whose keys and strings have no escape or control character,
 * its target an ASCII string (NFC already), its task absent, null, a boolean or a plain integer of at most 15 digits,
 * no key starting with a digit (JavaScript puts those first in an object's key order), and no repeated target or task.
 * Anything else (nesting, escapes, a non-ASCII target, a long or exotic task, broken JSON) is the exact parser's
 * (side-items.ts), which gives the same result or the error. The fields kept are the members other than target and task,
 * copied as they are written: canonical JSON is made only for a pair that differs (compare.ts), so the copy
 * compares as the exact path's encoding does.
 */

/** What a line is: an item scanned (its parts in the ScannedLine), a blank line, or one for the exact parser. */
export const LineKind = { Exact: 0, Item: 1, Blank: 2 } as const;
export type LineKind = (typeof LineKind)[keyof typeof LineKind];

/** The parts of a scanned line, as byte offsets into `buf`. */
export class ScannedLine {
  buf: Buffer = Buffer.alloc(0);
  start = 0;
  end = 0;
  /** The target's JSON string, its quotes included. */
  targetStart = 0;
  targetEnd = 0;
  task: number | null = null;
  /** Members kept, 4 offsets each: the key's start and end (its quotes included), the value's start and end. */
  members = new Int32Array(64);
  memberCount = 0;
}

const QUOTE = 34;
const BACKSLASH = 92;

function skipSpace(buf: Buffer, from: number, end: number): number {
  let i = from;
  while (i < end) {
    const c = buf[i];
    if (c !== 32 && c !== 9) break;
    i++;
  }
  return i;
}

/** Past the closing quote of the string opening at `at`; -1 for an escape or a control character. */
function stringEnd(buf: Buffer, at: number, end: number): number {
  for (let i = at + 1; i < end; i++) {
    const c = buf[i] ?? 0;
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH || c < 32) return -1;
  }
  return -1;
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 48 && c <= 57;
}

/** Past a JSON number at `at` (the strict grammar); -1 when it is not one. */
function numberEnd(buf: Buffer, at: number, end: number): number {
  let i = at;
  if (buf[i] === 45) i++;
  if (buf[i] === 48) i++;
  else if (i < end && isDigit(buf[i])) while (i < end && isDigit(buf[i])) i++;
  else return -1;
  if (i < end && buf[i] === 46) {
    i++;
    if (!(i < end && isDigit(buf[i]))) return -1;
    while (i < end && isDigit(buf[i])) i++;
  }
  if (i < end && (buf[i] === 101 || buf[i] === 69)) {
    i++;
    if (i < end && (buf[i] === 43 || buf[i] === 45)) i++;
    if (!(i < end && isDigit(buf[i]))) return -1;
    while (i < end && isDigit(buf[i])) i++;
  }
  return i;
}

function literalEnd(buf: Buffer, at: number, end: number, word: string): number {
  if (at + word.length > end) return -1;
  for (let k = 0; k < word.length; k++) if (buf[at + k] !== word.charCodeAt(k)) return -1;
  return at + word.length;
}

/** Past the value at `at`; -1 for one the exact parser reads (an object, an array, an escape, not JSON). */
function valueEnd(buf: Buffer, at: number, end: number): number {
  const c = buf[at];
  if (c === QUOTE) return stringEnd(buf, at, end);
  if (c === 116) return literalEnd(buf, at, end, 'true');
  if (c === 102) return literalEnd(buf, at, end, 'false');
  if (c === 110) return literalEnd(buf, at, end, 'null');
  return numberEnd(buf, at, end);
}

/** The key at `at` (quotes included, `length` bytes) is `word` (with its quotes). */
function isKey(buf: Buffer, at: number, length: number, word: string): boolean {
  if (length !== word.length) return false;
  for (let k = 0; k < length; k++) if (buf[at + k] !== word.charCodeAt(k)) return false;
  return true;
}

/** A task value as the exact path reads it (values.ts `taskOf`), or undefined when only the exact parser can tell. */
function taskValue(buf: Buffer, at: number, end: number): number | null | undefined {
  const c = buf[at];
  if (c === 116 || c === 102 || c === 110) return null; // true, false, null: no task
  let i = at;
  const negative = c === 45;
  if (negative) i++;
  if (end - i > 15 || end === i || (buf[i] === 48 && (negative || end - i > 1))) return undefined;
  let value = 0;
  for (; i < end; i++) {
    const d = buf[i] ?? 0;
    if (d < 48 || d > 57) return undefined; // a fraction or an exponent
    value = value * 10 + (d - 48);
  }
  return negative ? -value : value;
}

function hasHighByte(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if ((buf[i] ?? 0) >= 0x80) return true;
  return false;
}

/** Reads the line `start`..`end` of `buf` (no line break in it) into `out`. */
export function scanLine(buf: Buffer, start: number, end: number, out: ScannedLine): LineKind {
  let i = skipSpace(buf, start, end);
  if (i === end) return LineKind.Blank;
  if (buf[i] !== 123) return LineKind.Exact;
  out.buf = buf;
  out.start = start;
  out.end = end;
  out.targetStart = -1;
  out.task = null;
  out.memberCount = 0;
  let sawTask = false;
  i = skipSpace(buf, i + 1, end);
  for (;;) {
    if (buf[i] !== QUOTE) return LineKind.Exact;
    const keyStart = i;
    const keyEnd = stringEnd(buf, i, end);
    if (keyEnd < 0 || isDigit(buf[keyStart + 1])) return LineKind.Exact;
    i = skipSpace(buf, keyEnd, end);
    if (buf[i] !== 58) return LineKind.Exact;
    const valueStart = skipSpace(buf, i + 1, end);
    const valueStop = valueEnd(buf, valueStart, end);
    if (valueStop < 0) return LineKind.Exact;
    const keyLength = keyEnd - keyStart;
    if (isKey(buf, keyStart, keyLength, '"target"')) {
      if (out.targetStart >= 0 || buf[valueStart] !== QUOTE || hasHighByte(buf, valueStart, valueStop))
        return LineKind.Exact;
      out.targetStart = valueStart;
      out.targetEnd = valueStop;
    } else if (isKey(buf, keyStart, keyLength, '"task"')) {
      const task = sawTask ? undefined : taskValue(buf, valueStart, valueStop);
      if (task === undefined) return LineKind.Exact;
      sawTask = true;
      out.task = task;
    } else {
      const at = out.memberCount * 4;
      if (at + 4 > out.members.length) {
        const grown = new Int32Array(out.members.length * 2);
        grown.set(out.members);
        out.members = grown;
      }
      out.members[at] = keyStart;
      out.members[at + 1] = keyEnd;
      out.members[at + 2] = valueStart;
      out.members[at + 3] = valueStop;
      out.memberCount++;
    }
    i = skipSpace(buf, valueStop, end);
    if (buf[i] === 44) {
      i = skipSpace(buf, i + 1, end);
      continue;
    }
    if (buf[i] !== 125) return LineKind.Exact;
    i = skipSpace(buf, i + 1, end);
    return i === end && out.targetStart >= 0 ? LineKind.Item : LineKind.Exact;
  }
}

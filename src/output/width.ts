/**
 * Widths on a terminal: the one measure (string-width, the count cli-table3 lays tables out with) and what
 * is built on it: cutting a line, ending free text with `…`, word-wrapping messages, and the width budget.
 */
import stringWidth from 'string-width';
import { COMMANDS, commandLength } from './hint-globals.js';
import { terminalColumns } from './terminal-size.js';

const ELLIPSIS = '…';

/**
 * The columns a line may use on a terminal `columns` wide (80 when it reports none: output/terminal-size.ts): one less, so that no line ever touches the last column
 * (a line exactly as wide leaves the cursor in the pending-wrap state, and some terminals wrap it).
 */
export function lineBudget(columns: number | undefined): number {
  return Math.max(10, terminalColumns(columns) - 1);
}

/** Cells the terminal itself writes after a live line when Ctrl-C is typed: its `^C` echo. */
const ECHO_ROOM = 2;

/**
 * The columns a line redrawn in place may use (the live block, a spinner, a countdown): the line budget less room
 * for the terminal's `^C` echo, which would otherwise wrap to a new row that the block's erase does not know of,
 * leaving its first line behind.
 */
export function liveLineBudget(columns: number | undefined): number {
  return lineBudget(columns) - ECHO_ROOM;
}

/**
 * A message for `stream`: word-wrapped to its line budget when it is a terminal (as the printer wraps its messages),
 * unchanged for scripts and logs, which get each message on one line.
 */
export function fitToStream(text: string, stream: { isTTY?: boolean; columns?: number }): string {
  return stream.isTTY === true ? wrapMessage(text, lineBudget(stream.columns)) : text;
}

/** A message (an error, a hint, a warning) wrapped as `wrapText` does, never inside a command it names. */
export function wrapMessage(text: string, width: number, indent?: string): string {
  return wrapText(text, width, indent, { keepCommands: true });
}

/** Made on first use: building a Segmenter loads ICU's break rules (~10 ms), which ASCII text never needs. */
let graphemes: Intl.Segmenter | undefined;

/** User-perceived characters: an emoji with modifiers or a letter with combining marks is one. */
function characters(text: string): string[] {
  if (/^[\x20-\x7e]*$/.test(text)) return text.split('');
  graphemes ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  return Array.from(graphemes.segment(text), (part) => part.segment);
}

/**
 * Terminal columns: two for a wide (CJK, fullwidth) character or an emoji, none for a combining mark or a colour
 * sequence (string-width ignores them).
 */
export function textWidth(text: string): number {
  // ASCII, the common case, is one column a character.
  return /^[\x20-\x7e]*$/.test(text) ? text.length : stringWidth(text);
}

/** The widest line of a text that may span lines (a table cell of nested results). */
export function blockWidth(text: string): number {
  if (!text.includes('\n')) return textWidth(text);
  // A loop, not Math.max(...lines): a cell of a result's list of millions of elements is millions of lines, past what
  // a call's arguments may hold.
  let widest = 0;
  for (const line of text.split('\n')) widest = Math.max(widest, textWidth(line));
  return widest;
}

/** Continuation lines of a wrapped cell of nested `key: value` lines start this far in. */
const CELL_INDENT = '  ';

/** A table cell wrapped to `width`: a sentence (an error) continues at the cell's start, nested lines further in. */
export function wrapCell(text: string, width: number): string {
  return wrapText(text, width, text.includes('\n') ? CELL_INDENT : '');
}

/** The narrowest column that wraps each of `texts` (as `wrapCell` does) without breaking a word. */
export function leastCellWidth(texts: readonly string[]): number {
  return Math.max(0, ...texts.map((text) => (text.includes('\n') ? CELL_INDENT.length : 0) + longestWord([text])));
}

/** The widest word in `texts` (words end at whitespace). */
export function longestWord(texts: readonly string[]): number {
  let widest = 0;
  for (const text of texts) for (const word of text.split(/\s+/)) widest = Math.max(widest, textWidth(word));
  return widest;
}

/**
 * A file path cut to `width` columns at its start, at a `/` (`…/jobs/j-x.jsonl`): the end, which names the file, stays
 * whole; never a path cut in its middle.
 */
export function truncatePathStart(path: string, width: number): string {
  if (textWidth(path) <= width) return path;
  if (width <= 1) return ELLIPSIS.slice(0, width);
  const chars = [...characters(path)];
  let tail = '';
  let used = 0;
  for (let i = chars.length - 1; i >= 0; i--) {
    const char = chars[i] ?? '';
    const charWidth = textWidth(char);
    if (used + charWidth > width - 1) break;
    tail = char + tail;
    used += charWidth;
  }
  const slash = tail.indexOf('/');
  return `${ELLIPSIS}${slash >= 0 ? tail.slice(slash) : tail}`;
}

/**
 * `text` cut to `width` columns with `…`, after its last whole word that fits: no word is shown in part. Only a first
 * word wider than the cell (a long name, text without spaces) is cut mid-word, rather than leave the cell empty. For
 * what stays on screen (a table cell, a failure reason): an aside cut open is kept, what it holds read there.
 */
export function truncateText(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  if (width <= 1) return ELLIPSIS.slice(0, width);
  return withEllipsis(wordsThatFit(text, width));
}

/**
 * `truncateText` for a line redrawn in place (a spinner): an aside the cut would open and not close, when it starts in
 * the line's second half, goes whole, as `cutToWidth` does: the line is read in passing, and `(4…` says nothing.
 */
export function truncateLiveText(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  if (width <= 1) return ELLIPSIS.slice(0, width);
  return withEllipsis(withoutOpenAside(wordsThatFit(text, width), width));
}

/** The words of `text` that fit in `width` columns beside an ellipsis (its first word cut when none fits). */
function wordsThatFit(text: string, width: number): string {
  // Whole characters while they fit beside the ellipsis; a wide one that would straddle the edge is left out.
  let head = '';
  let used = 0;
  for (const char of characters(text)) {
    const charWidth = textWidth(char);
    if (used + charWidth > width - 1) break;
    head += char;
    used += charWidth;
  }
  // `head` is a prefix of `text`: it ends a word when a space follows it there.
  const space = text.charAt(head.length) === ' ' ? head.length : head.lastIndexOf(' ');
  return space > 0 ? head.slice(0, space).trimEnd() : head.trimEnd();
}

/** `head` ended with `…`, unless its text already ends with one (`creating chunk 13 of 50…`), colour sequences after it. */
function withEllipsis(head: string): string {
  return head.replace(SGR_TRAILING, '').endsWith(ELLIPSIS) ? head : `${head}${ELLIPSIS}`;
}

/**
 * `head`, a line's start, without an aside it opens and does not close (` (4 requests a`), when one opens in the second
 * half of `width`: a cut line says `waiting 52s for the rate limit…`, never `… rate limit (4…`.
 */
function withoutOpenAside(head: string, width: number): string {
  const open = openAsideAt(head);
  return open !== undefined && textWidth(head.slice(0, open)) >= width / 2 ? head.slice(0, open).trimEnd() : head;
}

/** Where the ` (` of the aside `text` leaves open at its end starts, if it leaves one open. */
function openAsideAt(text: string): number | undefined {
  let depth = 0;
  let at: number | undefined;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') {
      // The space before it, past any colour sequence (`processing \e[2m(the server…`).
      const before = text.slice(0, i).replace(SGR_TRAILING, '');
      if (depth === 0 && before.endsWith(' ')) at = before.length - 1;
      depth++;
    } else if (text[i] === ')' && depth > 0 && --depth === 0) at = undefined;
  }
  return depth > 0 ? at : undefined;
}

// Colour sequences chalk adds (server text was neutralised before colouring, so it holds none of its own).
const SGR_AT = /^\u001b\[[0-9;]*m/;
/** Colour sequences at the end of a text. */
const SGR_TRAILING = /(?:\u001b\[[0-9;]*m)+$/;
const SGR_RESET = '\u001b[0m';

/**
 * A coloured line cut to `width` columns and ended with `…` (in the colour of the text it ends), keeping its colour
 * sequences and closing any colour left open. The cut comes after the last whole word when one ends in the second half
 * of the line (`waiting 57s…`, never `waiting 5…`); only a line of long words is cut mid-word. A line that fits is
 * returned as it is.
 */
export function cutToWidth(line: string, width: number): string {
  if (textWidth(line) <= width) return line;
  if (width <= 1) return ELLIPSIS.slice(0, width);
  let out = '';
  let used = 0;
  let rest = line;
  let coloured = false;
  /** Where `out` last had a space after a word, with the columns used up to it. */
  let wordEnd: { at: number; used: number } | undefined;
  // textWidth counts no colour sequence, so an aside is judged by the columns before it.
  const end = (head: string) => `${withEllipsis(withoutOpenAside(head, width))}${coloured ? SGR_RESET : ''}`;
  const atWordEnd = () => (wordEnd !== undefined && wordEnd.used >= width / 2 ? out.slice(0, wordEnd.at) : out);
  while (rest.length > 0) {
    const sgr = SGR_AT.exec(rest);
    if (sgr) {
      coloured = true;
      out += sgr[0];
      rest = rest.slice(sgr[0].length);
      continue;
    }
    const next = rest.search(/\u001b/);
    const plain = next < 0 ? rest : next === 0 ? rest.slice(0, 1) : rest.slice(0, next);
    for (const char of characters(plain)) {
      const w = textWidth(char);
      // One column is kept for the ellipsis.
      if (used + w > width - 1) return end(char === ' ' ? out : atWordEnd());
      if (char === ' ' && used > 0 && !out.endsWith(' ')) wordEnd = { at: out.length, used };
      out += char;
      used += w;
    }
    rest = rest.slice(plain.length);
  }
  return end(atWordEnd());
}

/**
 * Plain text word-wrapped to `width` columns: lines break at spaces, never inside a word (a word wider than the line
 * is the only thing cut, unless `cutLongWords` is false: then it stays whole on its line). Existing line breaks are
 * kept; continuation lines get `indent` (the first line's own leading spaces by default), so a hint stays visibly one
 * paragraph. With `keepCommands` (messages: `wrapMessage`, a card's value), a command the text names is kept whole (see
 * `wrapWords`); a prompt or a table cell breaks like any text.
 */
export function wrapText(
  text: string,
  width: number,
  indent?: string,
  { keepCommands = false, cutLongWords = true }: { keepCommands?: boolean; cutLongWords?: boolean } = {},
): string {
  return text
    .split('\n')
    .map((line) => {
      const lead = /^ */.exec(line)?.[0] ?? '';
      return wrapWords(lead, line.slice(lead.length), width, indent ?? lead, { keepCommands, cutLongWords });
    })
    .join('\n');
}

/**
 * A command a message names for the user to copy: `taskctl`, global flags (`--sandbox`, `--profile p2`,
 * `--profile=p2`, `-v`), then a command.
 */
const COMMAND_START = new RegExp(
  String.raw`(?<![\w/.-])taskctl (?=(?:-{1,2}[a-z][a-z-]*(?:=\S+|(?: (?:'[^']*'|[^-\s]\S*))?) )*(?:${COMMANDS.join('|')})(?![\w-]))`,
  'g',
);

/** A word of a line to wrap, with the spaces before it in the text (kept while the two stay on one line). */
interface Piece {
  text: string;
  gap: string;
  /** Where the word starts in the text. */
  at: number;
}

/** `words` split at spaces, each word with the run of spaces before it: aligned text keeps its columns. */
function spacedWords(words: string): Piece[] {
  return Array.from(words.matchAll(/( *)([^ ]+)/g), (m) => ({
    gap: m[1] ?? '',
    text: m[2] ?? '',
    at: m.index + (m[1] ?? '').length,
  }));
}

/** A flag and its value named in prose (`-o tsv`, `--page 2`): one piece, so that a copy of it is whole. */
const FLAG_WITH_VALUE = /(?<![\w-])(?:-[a-zA-Z] [^\s-]\S*|--[a-z][a-z-]* \d\S*)/g;

/**
 * `words` split at spaces, but a `taskctl <command>` it names is one piece, from `taskctl` to the end of its last
 * word (a closing backtick, bracket or comma included): copied from the terminal, it must be one command. So is a flag
 * with its value (FLAG_WITH_VALUE) outside one.
 */
function wrapPieces(words: string): Piece[] {
  const spans: Array<[number, number]> = [];
  for (const match of words.matchAll(COMMAND_START)) {
    spans.push([match.index, match.index + commandLength(words.slice(match.index))]);
  }
  for (const match of words.matchAll(FLAG_WITH_VALUE)) {
    const span: [number, number] = [match.index, match.index + match[0].length];
    if (!spans.some(([from, to]) => span[0] < to && span[1] > from)) spans.push(span);
  }
  const split = spacedWords(words);
  if (spans.length === 0) return split;
  const pieces: Piece[] = [];
  let joined: { span: [number, number]; piece: Piece } | undefined;
  for (const word of split) {
    const span = spans.find(([from, to]) => word.at + word.text.length > from && word.at < to);
    if (span !== undefined && joined?.span === span) joined.piece.text += `${word.gap}${word.text}`;
    else {
      if (joined) pieces.push(joined.piece);
      joined = span === undefined ? undefined : { span, piece: { ...word } };
      if (span === undefined) pieces.push(word);
    }
  }
  if (joined) pieces.push(joined.piece);
  return pieces;
}

/**
 * One line, `lead` and then `words`, word-wrapped to `width` columns as `wrapText` does (words that stay on one line
 * keep the spaces between them, so an aligned line keeps its columns): the first word stays beside
 * the lead (leading spaces, or a term such as `  --flag <x>  ` whose text the continuation lines hang under), and
 * each continuation line starts with `indent`. The help texts (commands/help-text.ts) choose lead and indent this way,
 * and keep a word wider than the line whole (`cutLongWords: false`: a path in help is copied, not read). With
 * `keepCommands` (messages: `wrapMessage`), a `taskctl <command>` the text names is never broken: it starts a line of its
 * own when it does not fit beside what comes before, and one wider than the line is left whole on its line.
 */
export function wrapWords(
  lead: string,
  words: string,
  width: number,
  indent: string,
  { cutLongWords = true, keepCommands = false }: { cutLongWords?: boolean; keepCommands?: boolean } = {},
): string {
  const line = lead + words;
  if (textWidth(line) <= width) return line;
  const lines: string[] = [];
  let current = lead;
  let currentWidth = textWidth(lead);
  // No word on the current line yet: the next one follows the lead or the indent without a space.
  let empty = true;
  const room = Math.max(1, width - textWidth(indent));
  for (const { text: word, gap } of keepCommands ? wrapPieces(words) : spacedWords(words)) {
    const w = textWidth(word);
    if (!empty && currentWidth + gap.length + w > width) {
      lines.push(current);
      current = indent;
      currentWidth = textWidth(indent);
      empty = true;
    }
    // A command (a piece with spaces) wider than a line stays whole: the terminal wraps it, a copy is one command.
    if (cutLongWords && empty && w > room && !word.includes(' ')) {
      // A word longer than a whole line (a URL, a path): cut into line-sized pieces, the only break inside a word.
      let piece = '';
      let pieceWidth = 0;
      for (const char of characters(word)) {
        const cw = textWidth(char);
        if (pieceWidth + cw > width - currentWidth && piece !== '') {
          lines.push(current + piece);
          current = indent;
          currentWidth = textWidth(indent);
          piece = '';
          pieceWidth = 0;
        }
        piece += char;
        pieceWidth += cw;
      }
      current += piece;
      currentWidth += pieceWidth;
      empty = false;
      continue;
    }
    // Words that stay on one line keep the spaces between them (an aligned line keeps its columns); a break drops them.
    current += empty ? word : `${gap}${word}`;
    currentWidth += empty ? w : gap.length + w;
    empty = false;
  }
  lines.push(current);
  return lines.map((l) => l.trimEnd()).join('\n');
}

/**
 * What one side of `taskctl diff` names, and how its bytes are recognised: an argument of only digits is a task id,
 * `-` is stdin, anything else a file (`./42` included). A file's kind comes from its content, never its name: a
 * journal (its first line the job record of `create --journal`), a csv export (a header line with a `target` column),
 * ndjson (one JSON object a line) or a json document (a task, or a list of tasks or item records). tsv has no header,
 * so nothing names its columns: it is refused.
 */
import { InputError, InterruptedError, UsageError } from '../../errors.js';
import type { InputStream } from '../../output/io.js';
import { openItemsFile } from '../../store/items-file.js';
import { ChunkDecoder, DecodeFailure } from '../../lib/items/decode.js';
import { readError } from '../items/messages.js';
import { MAX_SIDE_LINE, sideDecodeError } from './limits.js';

export type SideSpec =
  | { kind: 'task'; id: number; name: string }
  | { kind: 'file'; path: string; name: string }
  | { kind: 'stdin'; name: string };

type FileKind = 'journal' | 'csv' | 'ndjson' | 'json';

/** An opened file side: its kind, and its bytes from the start (the ones read to recognise it included). */
export interface OpenedFile {
  name: string;
  /** The file's path; undefined for stdin. */
  path: string | undefined;
  kind: FileKind;
  chunks: AsyncIterable<Buffer>;
  close: () => Promise<void>;
}

/** Bytes read from a side at a time (fewer reads and awaits for a side of gigabytes). */
const READ_SIZE = 1024 * 1024;
/** Bytes read at most to find the first line: a header or a record longer than a line may be is not a results file's. */
const SNIFF_BYTES = MAX_SIDE_LINE;

const SIDE_HINT =
  'Each side is a task id, a job (its id, or its journal), a results file of `taskctl show -o ndjson|json|csv`, or - (stdin).';

export function parseSide(arg: string): SideSpec {
  if (/^\d+$/.test(arg)) {
    if (arg.length > 15) throw new UsageError(`invalid task id "${arg}"`, SIDE_HINT);
    return { kind: 'task', id: Number(arg), name: `task ${arg}` };
  }
  if (arg === '-') return { kind: 'stdin', name: 'stdin' };
  if (arg === '') throw new UsageError('an empty argument names no side', SIDE_HINT);
  return { kind: 'file', path: arg, name: arg };
}

/**
 * Opens a file or stdin side and recognises its kind from its first line. A stop signal closes a file side at once: a
 * FIFO whose writer is silent (`<(slow-cmd)`) would otherwise keep the read, and the process, waiting.
 */
export async function openFileSide(
  spec: Exclude<SideSpec, { kind: 'task' }>,
  stdin: InputStream,
  signal: AbortSignal,
): Promise<OpenedFile> {
  let source: AsyncIterable<Buffer | string>;
  let close = (): Promise<void> => Promise.resolve();
  if (spec.kind === 'stdin') {
    if (stdin.isTTY === true)
      throw new UsageError('- reads a side from stdin, but stdin is a terminal', 'Pipe a results file in.');
    source = stdin;
  } else {
    try {
      const file = await openItemsFile(spec.path);
      source = file.chunks(READ_SIZE);
      const stop = () => void file.close();
      signal.addEventListener('abort', stop, { once: true });
      close = () => (signal.removeEventListener('abort', stop), file.close());
    } catch (error) {
      throw new InputError(readError(spec.name, error).message, SIDE_HINT);
    }
  }
  const iterator = source[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let ended = false;
  let kind: FileKind;
  try {
    ended = await readFirstLine(iterator, head);
    if (signal.aborted) throw new InterruptedError('interrupted', 'Nothing was compared; run the same diff again.');
    kind = recognise(headText(head, ended, spec.name), spec.name);
  } catch (error) {
    // A side refused after its file was opened (tsv, empty, no target) leaves nothing open.
    await close();
    throw error;
  }
  async function* chunks(): AsyncGenerator<Buffer> {
    let finished = ended;
    try {
      yield* head;
      if (ended) return;
      for (;;) {
        const step = await iterator.next();
        finished = step.done === true;
        if (finished) return;
        yield typeof step.value === 'string' ? Buffer.from(step.value) : step.value;
      }
    } finally {
      // A side refused part-way stops its producer (an endless pipe), without waiting on it.
      if (!finished) Promise.resolve(iterator.return?.()).catch(() => undefined);
    }
  }
  return { name: spec.name, path: spec.kind === 'file' ? spec.path : undefined, kind, chunks: chunks(), close };
}

/** Reads into `head` until it holds a whole first line (or SNIFF_BYTES); true when the source ended meanwhile. */
async function readFirstLine(iterator: AsyncIterator<Buffer | string>, head: Buffer[]): Promise<boolean> {
  let size = 0;
  while (!head.some((chunk) => chunk.includes(10)) && size < SNIFF_BYTES) {
    const step = await iterator.next();
    if (step.done === true) return true;
    const chunk = typeof step.value === 'string' ? Buffer.from(step.value) : step.value;
    head.push(chunk);
    size += chunk.length;
  }
  return false;
}

/** The first bytes as text, decoded as the whole side will be (a BOM names UTF-16); binary data is refused here. */
function headText(head: readonly Buffer[], ended: boolean, name: string): string {
  const decoder = new ChunkDecoder();
  let text = '';
  try {
    text = decoder.decode(Buffer.concat(head));
    if (ended) text += decoder.end();
    return text;
  } catch (error) {
    if (!(error instanceof DecodeFailure)) throw error;
    const line = (text + error.prefix).split(/\r\n|\r|\n/).length;
    throw sideDecodeError(name, line, error.kind);
  }
}

/** The kind of a side from its first bytes (the first line, or what was read of it). */
function recognise(text: string, name: string): FileKind {
  const body = text;
  const start = body.search(/\S/);
  if (start === -1) throw new InputError(`${name} is empty`, SIDE_HINT);
  const end = body.indexOf('\n', start);
  const first = body.slice(start, end === -1 ? undefined : end).trim();
  if (body[start] === '[') return 'json';
  if (body[start] === '{') {
    let record: unknown;
    try {
      record = JSON.parse(first);
    } catch {
      return 'json'; // a document over several lines (show -o json prints it indented)
    }
    return (record as { type?: unknown }).type === 'job' ? 'journal' : 'ndjson';
  }
  if (isJsonScalar(first)) return 'ndjson'; // a line that is no object: refused as ndjson, naming the line
  if (first.includes('\t') && !first.includes(','))
    throw new InputError(
      `${name} looks like a tsv export, which has no header to name its columns`,
      'Export with `taskctl show ID -o ndjson` (or -o csv) and compare those files.',
    );
  return 'csv';
}

/**
 * A first line that is a JSON number, literal or string is ndjson of values that are no item: read as ndjson, it is
 * refused as such, not as a csv header with no target column. The one string a csv header may be is `"target"` (a
 * quoted one-column header).
 */
function isJsonScalar(line: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return false;
  }
  return typeof value === 'string' ? value.trim() !== 'target' : typeof value !== 'object' || value === null;
}

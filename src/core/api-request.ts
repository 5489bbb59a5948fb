/**
 * `taskctl api [METHOD] <path>`: a request to any path under the base URL through the one client (auth,
 * rate limit, redaction, deadline, body cap, GET-only resends), like `gh api` and `stripe get`. The body is printed as
 * it came (pretty JSON on a terminal); the exit code is mapped like every other command's.
 */
import { MAX_JSON_CONTAINERS, MAX_REQUEST_BYTES, REQUEST_METHODS } from '../api/constants.js';
import { systemErrorWords, UsageError } from '../errors.js';
import { readBounded } from '../lib/abortable.js';
import { jsonSyntaxWords } from '../lib/json-locate.js';
import { formatBytes } from '../output/bytes.js';
import { formatCount } from '../output/numbers.js';
import { readTextFile } from '../store/text-file.js';
import type { Output, Process, Prompts, Service } from './capabilities.js';

type Method = (typeof REQUEST_METHODS)[number];

/** One `-f`/`-F` in command-line order (`seq`), so `items[]` lists keep their order across both flags. */
export interface Field {
  typed: boolean;
  text: string;
  seq: number;
}

export interface ApiCommandOptions {
  rawField?: Field[];
  field?: Field[];
  input?: string;
  include?: boolean;
}

/** Methods that carry a body; GET and DELETE send their fields as the query. */
const BODY_METHODS: ReadonlySet<Method> = new Set(['POST', 'PUT', 'PATCH']);

function parseMethod(first: string, second: string | undefined): { method: Method; path: string } {
  const method = REQUEST_METHODS.find((m) => m === first.toUpperCase());
  if (second === undefined) {
    // `taskctl api POST` with the path forgotten must not become GET /POST.
    if (method !== undefined)
      throw new UsageError(`no path given after ${method}`, `e.g. taskctl api ${method} /tasks`);
    return { method: 'GET', path: first };
  }
  if (method === undefined) {
    throw new UsageError(`unknown method "${first}"`, `Use one of ${REQUEST_METHODS.join(', ')}.`);
  }
  return { method, path: second };
}

/** `--input FILE is larger than 16 MiB (114 MiB)`: a body past the cap is refused before it is parsed or sent. */
function tooLarge(what: string, path: string, size: number | undefined): UsageError {
  const name = path === '-' ? `${what} - (stdin)` : `${what} ${path}`;
  const cap = formatBytes(MAX_REQUEST_BYTES);
  return new UsageError(
    size === undefined
      ? `${name} is larger than ${cap}, the most taskctl sends as a request body; stopped reading`
      : `${name} is larger than ${cap} (${formatBytes(size)}), the most taskctl sends as a request body`,
    'Split it into smaller requests; for many items, `taskctl create SERVICE -f FILE --chunk-size N` sends them in chunks.',
  );
}

/** Reads `--input` or an `@file` value, up to MAX_REQUEST_BYTES; `-` is stdin, read at most once. */
function fileReader(ctx: Output & Service & Pick<Process, 'signal'>) {
  let stdinTakenBy: string | undefined;
  return async (path: string, what: string): Promise<string> => {
    if (path !== '-') {
      let read;
      try {
        read = await readTextFile(path, MAX_REQUEST_BYTES, ctx.signal);
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        throw new UsageError(
          `cannot read ${what} ${path}: ${systemErrorWords(error)}`,
          'Check the path and its permissions.',
        );
      }
      if ('text' in read) return read.text;
      throw tooLarge(what, path, read.size);
    }
    if (stdinTakenBy !== undefined || ctx.globals.apiKeyFile === '-') {
      throw new UsageError(
        `stdin cannot feed both ${what} and ${stdinTakenBy ?? '--api-key-file -'}`,
        'Read one of them from a file.',
      );
    }
    if (ctx.io.stdin.isTTY === true) {
      throw new UsageError(`${what} - reads stdin, but stdin is a terminal`, 'Pipe the content in, or give a file.');
    }
    stdinTakenBy = what;
    const bytes = await readBounded(ctx.io.stdin, ctx.signal, MAX_REQUEST_BYTES);
    if (bytes === undefined) throw tooLarge(what, path, undefined);
    return bytes.toString('utf8');
  };
}

/** A JSON number as JSON writes it: `-f` keeps `007` and `1e3` as text, `-F` types only what JSON would. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** What a field can hold: `-f` always a string, `-F` also a JSON scalar. */
type FieldValue = string | number | boolean | null;

async function fieldValue(field: Field, value: string, read: ReturnType<typeof fileReader>): Promise<FieldValue> {
  if (!field.typed) return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (value === 'null') return null;
  if (JSON_NUMBER.test(value) && Number.isFinite(Number(value))) {
    // An id past 2^53 would silently change as a JS number: keep it as the text the user wrote.
    const whole = /^-?\d+$/.test(value);
    return whole && !Number.isSafeInteger(Number(value)) ? value : Number(value);
  }
  if (value.startsWith('@')) return read(value.slice(1), `-F ${field.text.slice(0, field.text.indexOf('='))}=@`);
  return value;
}

/** The fields in command-line order, typed, as [key, value] pairs. */
async function readFields(options: ApiCommandOptions, read: ReturnType<typeof fileReader>) {
  const fields = [...(options.rawField ?? []), ...(options.field ?? [])].sort((a, b) => a.seq - b.seq);
  const pairs: Array<[string, FieldValue]> = [];
  for (const field of fields) {
    const at = field.text.indexOf('=');
    pairs.push([field.text.slice(0, at), await fieldValue(field, field.text.slice(at + 1), read)]);
  }
  return pairs;
}

const queryText = (value: FieldValue): string => (value === null ? '' : String(value));

/** Fields as a JSON object: `key[]` builds a list; a plain key given twice is refused (it is ambiguous). */
function bodyFromFields(pairs: ReadonlyArray<[string, FieldValue]>): string {
  const body = new Map<string, unknown>();
  for (const [rawKey, value] of pairs) {
    const list = rawKey.endsWith('[]');
    const key = list ? rawKey.slice(0, -2) : rawKey;
    const existing = body.get(key);
    if (!body.has(key)) body.set(key, list ? [value] : value);
    else if (list && Array.isArray(existing)) existing.push(value);
    else throw new UsageError(`the field "${key}" is given more than once`, `Use ${key}[]=… for each value of a list.`);
  }
  return JSON.stringify(Object.fromEntries(body));
}

/** `--input`: read and checked as JSON before anything is sent. */
async function readInput(path: string, read: ReturnType<typeof fileReader>): Promise<string> {
  const text = await read(path, '--input');
  const { parseResponseJson } = await import('../api/response-json.js');
  const parsed = parseResponseJson(text);
  if (parsed.ok) return text;
  if (parsed.why === 'too large')
    throw new UsageError(
      `--input ${path} holds more objects and arrays than taskctl reads (${formatCount(MAX_JSON_CONTAINERS)} at most)`,
      'No request of the API takes that many: check the file with `jq . FILE`.',
    );
  const reason = parsed.why === 'invalid' ? jsonSyntaxWords(text) : parsed.why;
  throw new UsageError(
    `--input ${path} is not valid JSON (${reason})`,
    'The request body is sent as JSON: check the file with `jq . FILE`.',
  );
}

/** `HTTP 200 OK` (the standard reason phrase: undici does not pass on the server's), then `name: value` lines. */
async function headerLines(status: number, headers: Record<string, string | string[] | undefined>): Promise<string[]> {
  // node:http (3 ms to load) only when -i asks for the headers.
  const [{ redactHeaders }, { STATUS_CODES }] = await Promise.all([import('../lib/redact.js'), import('node:http')]);
  const reason = STATUS_CODES[status];
  const lines = [reason === undefined ? `HTTP ${status}` : `HTTP ${status} ${reason}`];
  for (const [name, value] of Object.entries(redactHeaders(headers))) lines.push(`${name}: ${value}`);
  return lines;
}

export async function runApi(
  ctx: Output & Prompts & Process & Service,
  first: string,
  second: string | undefined,
  options: ApiCommandOptions,
): Promise<void> {
  const { method, path } = parseMethod(first, second);
  const { apiRequestPath } = await import('../api/request-path.js');
  // Refused paths fail before any file is read or any configuration is needed.
  apiRequestPath(path);
  if (options.input !== undefined && !BODY_METHODS.has(method)) {
    throw new UsageError(
      `a ${method} request has no body, so --input cannot be used`,
      `Name the method: taskctl api POST ${path} --input ${options.input}`,
    );
  }
  const read = fileReader(ctx);
  const body = options.input === undefined ? undefined : await readInput(options.input, read);
  const pairs = await readFields(options, read);
  const fieldsInBody = BODY_METHODS.has(method) && body === undefined;
  const request = fieldsInBody
    ? { body: pairs.length > 0 ? bodyFromFields(pairs) : undefined }
    : { body, query: pairs.map(([key, value]): [string, string] => [key, queryText(value)]) };

  const api = await ctx.api();
  const response = await ctx.spin(`${method} ${path}`, () => api.request(method, path, request));
  await printResponse(ctx, response, options.include === true);
  if (response.error) throw response.error;
}

async function printResponse(
  ctx: Output,
  response: { status: number; headers: Record<string, string | string[] | undefined>; text: string },
  include: boolean,
): Promise<void> {
  const { neutralise, neutraliseMultiline } = await import('../lib/sanitize.js');
  const { stdout } = ctx.io;
  const terminal = stdout.isTTY === true;
  if (include) {
    const lines = await headerLines(response.status, response.headers);
    stdout.write(`${lines.map((line) => neutralise(ctx.redact(line))).join('\n')}\n\n`);
  }
  if (response.text === '') return;
  if (!terminal) {
    // Piped: the body as it came (only the API key, should the server echo it, is scrubbed), ending with a newline
    // as every line a shell or `read` expects does.
    const body = ctx.redact(response.text);
    stdout.write(body.endsWith('\n') ? body : `${body}\n`);
    return;
  }
  const { parseResponseJson } = await import('../api/response-json.js');
  const parsed = parseResponseJson(response.text);
  if (parsed.ok) {
    ctx.printer.json(parsed.value);
    return;
  }
  const text = neutraliseMultiline(ctx.redact(response.text));
  stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/**
 * The contract, docs/openapi.json, as an independent check: ajv's JSON Schema 2020-12 validator (the document's
 * `jsonSchemaDialect`) with ajv-formats, never the project's zod schemas. Given a request or a response as it went on
 * the wire, it names every way it departs from the document (an empty list: it conforms).
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is JSON read at run time
export type Json = any;

const CONTRACT_FILE = new URL('../../docs/openapi.json', import.meta.url);
export const contract: Json = JSON.parse(readFileSync(CONTRACT_FILE, 'utf8'));

/** The path the document's first server URL has: what the API's paths are relative to. */
export const BASE_PATH = new URL(String(contract.servers[0].url).replace('{host}', 'h')).pathname;

const SCHEMAS_ID = 'https://taskctl.invalid/openapi.json';
const SCHEMA_REF = '#/components/schemas/';

/** The schema with its `$ref`s to components/schemas made absolute, so any schema of the document compiles alone. */
function absoluteRefs(node: Json): Json {
  if (Array.isArray(node)) return node.map(absoluteRefs);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) =>
      key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_REF)
        ? [key, `${SCHEMAS_ID}#/$defs/${value.slice(SCHEMA_REF.length)}`]
        : [key, absoluteRefs(value)],
    ),
  );
}

/**
 * One validator for every file a worker runs (module-level: the suite runs with `isolate: false`), so the 2020-12
 * meta-schema and each of the document's schemas are compiled once per worker. Strict: an unknown keyword or a type
 * mix-up in the document's schemas is an error, not a silent pass. The generated code is not optimised: each schema
 * validates a few hundred values at most, so compiling it is what costs, not running it.
 */
const ajv = new Ajv2020({ strict: true, allErrors: true, code: { optimize: false } });
// ajv-formats is CommonJS: imported from ESM, its plugin is the module's `default`.
addFormatsModule.default(ajv);
ajv.addSchema({ $id: SCHEMAS_ID, $defs: absoluteRefs(contract.components.schemas) });
const compiled = new Map<object, ValidateFunction>();

/** Where `schema` departs from the JSON Schema 2020-12 meta-schema: 'ok', or ajv's errors as text. */
export function metaSchemaProblems(schema: Json): string {
  return ajv.validateSchema(schema) ? 'ok' : ajv.errorsText(ajv.errors);
}

/** Problems of `value` against one of the document's schemas (`where` prefixes each). */
export function schemaProblems(schema: Json, value: unknown, where: string): string[] {
  let validate = compiled.get(schema as object);
  if (!validate) {
    validate = ajv.compile(absoluteRefs(schema));
    compiled.set(schema as object, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${where}${e.instancePath}: ${e.message ?? e.keyword}`);
}

/** A `$ref` to anything in the document (a response, a header, a parameter, an example), followed. */
export function deref(node: Json): Json {
  let current = node;
  while (typeof current?.$ref === 'string' && !String(current.$ref).startsWith(SCHEMA_REF)) {
    const pointer = String(current.$ref).slice(2).split('/');
    current = pointer.reduce((at: Json, part) => at?.[part.replaceAll('~1', '/').replaceAll('~0', '~')], contract);
  }
  return current;
}

/** Every example in the document with the schema it illustrates: [where, schema, value]. */
export function documentExamples(): Array<[string, Json, unknown]> {
  const found: Array<[string, Json, unknown]> = [];
  const visit = (node: Json, where: string[]) => {
    if (typeof node !== 'object' || node === null) return;
    if (node.schema && node.examples) {
      for (const [name, example] of Object.entries<Json>(node.examples))
        found.push([`${where.join(' ')} (${name})`, node.schema, deref(example).value]);
    }
    for (const [key, value] of Object.entries<Json>(node)) if (key !== 'examples') visit(deref(value), [...where, key]);
  };
  visit(contract.paths, ['paths']);
  visit(contract.webhooks, ['webhooks']);
  visit(contract.components.responses, ['responses']);
  return found;
}

export interface Operation {
  method: string;
  template: string;
  op: Json;
  pathParams: Record<string, string>;
}

/** The operation for a method and a path relative to the base path (`/tasks/7`), or undefined. */
export function findOperation(method: string, path: string): Operation | undefined {
  for (const [template, item] of Object.entries<Json>(contract.paths)) {
    const names: string[] = [];
    const pattern = template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    const match = new RegExp(`^${pattern}$`).exec(path);
    const op = item[method.toLowerCase()];
    if (!match || !op) continue;
    const pathParams = Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? '')]));
    return { method, template, op, pathParams };
  }
  return undefined;
}

/** `2XX` for 201: the key of `responses` that answers `status` (exact, then range, then default). */
export function responseKey(responses: Json, status: number): string | undefined {
  const keys = [String(status), `${String(status)[0]}XX`, 'default'];
  return keys.find((key) => key in responses);
}

/** A header's or parameter's text as its schema's type (the `simple` style: a number is its digits). */
function coerce(text: string, schema: Json): unknown {
  const ref = typeof schema.$ref === 'string' ? String(schema.$ref) : '';
  const type = (ref.startsWith(SCHEMA_REF) ? contract.components.schemas[ref.slice(SCHEMA_REF.length)] : schema).type;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

type HeaderLookup = (name: string) => string | null | undefined;

/** Declared headers: required ones present, every present one valid. */
function headerProblems(declared: Json, get: HeaderLookup, where: string): string[] {
  const problems: string[] = [];
  for (const [name, ref] of Object.entries<Json>(declared ?? {})) {
    const header = deref(ref);
    const value = get(name);
    if (value === null || value === undefined) {
      if (header.required) problems.push(`${where} header ${name}: missing`);
      continue;
    }
    problems.push(...schemaProblems(header.schema, coerce(value, header.schema), `${where} header ${name}`));
  }
  return problems;
}

function mediaType(contentType: string | null | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export interface WireResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

/** Problems of a response to `method path` (the path relative to the base path, query left out). */
export function responseProblems(method: string, path: string, res: WireResponse): string[] {
  const found = findOperation(method, path);
  const where = `${method} ${path} → ${res.status}`;
  // A request the document does not describe (a method it has no operation for) is refused like any refusal.
  const responses = found ? found.op.responses : { '4XX': { $ref: '#/components/responses/ClientError' } };
  const key = responseKey(responses, res.status);
  if (key === undefined) return [`${where}: the document has no response for this status`];
  const response = deref(responses[key]);
  const problems = headerProblems(response.headers, (name) => res.headers.get(name), where);
  const content = response.content;
  if (!content) return problems;
  const type = mediaType(res.headers.get('content-type'));
  // The most specific media range the document lists: `text/plain`, then `text/*`, then `*/*`.
  const media = content[type] ?? content[`${type.split('/')[0] ?? ''}/*`] ?? content['*/*'];
  if (!media) return [...problems, `${where}: Content-Type ${type} is not one the document lists`];
  return [...problems, ...schemaProblems(media.schema, res.body, `${where} body`)];
}

type IncomingHeaders = Record<string, string | string[] | undefined>;

/** A request's header by name, as node:http gives them (lower-case names; repeated ones joined). */
function headerOf(headers: IncomingHeaders): HeaderLookup {
  return (name) => {
    const value = headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

export interface WireRequest {
  method: string;
  /** The path as sent, with the query. */
  url: string;
  headers: IncomingHeaders;
  body: string;
}

/** Problems of a request as a server received it: operation, parameters, security, body. */
export function requestProblems(req: WireRequest): string[] {
  const url = new URL(req.url, 'http://x');
  if (!url.pathname.startsWith(`${BASE_PATH}/`)) return [`${req.method} ${req.url}: not under ${BASE_PATH}`];
  const path = url.pathname.slice(BASE_PATH.length);
  const where = `${req.method} ${path}`;
  const found = findOperation(req.method, path);
  if (!found) return [`${where}: no such operation in the document`];
  const header = headerOf(req.headers);
  const problems: string[] = [];
  const params = ((found.op.parameters ?? []) as Json[]).map(deref);
  for (const param of params) {
    const value =
      param.in === 'path'
        ? found.pathParams[param.name]
        : param.in === 'query'
          ? (url.searchParams.get(param.name) ?? undefined)
          : header(param.name);
    if (value === undefined || value === null) {
      if (param.required) problems.push(`${where}: ${param.in} parameter ${param.name} missing`);
      continue;
    }
    problems.push(...schemaProblems(param.schema, coerce(value, param.schema), `${where} ${param.in} ${param.name}`));
  }
  const declared = new Set(params.filter((p) => p.in === 'query').map((p) => p.name as string));
  for (const name of url.searchParams.keys())
    if (!declared.has(name)) problems.push(`${where}: query parameter ${name} is not in the document`);
  problems.push(...securityProblems(found.op.security ?? contract.security, header, where));
  const body = found.op.requestBody ? deref(found.op.requestBody) : undefined;
  if (!body) {
    if (req.body !== '') problems.push(`${where}: a body, where the document has none`);
    return problems;
  }
  if (req.body === '') return body.required ? [...problems, `${where}: the required body is missing`] : problems;
  const media = body.content[mediaType(header('content-type'))];
  if (!media) return [...problems, `${where}: Content-Type ${String(header('content-type'))} is not the document's`];
  return [...problems, ...schemaProblems(media.schema, JSON.parse(req.body), `${where} body`)];
}

/** One of the requirements holds: an `apiKey` header present, or `Authorization: Bearer <token>`. */
function securityProblems(requirements: Json[], header: HeaderLookup, where: string): string[] {
  if (requirements.length === 0) return [];
  const met = requirements.some((requirement) =>
    Object.keys(requirement).every((name) => {
      const scheme = contract.components.securitySchemes[name];
      if (scheme.type === 'apiKey') return Boolean(header(scheme.name));
      return new RegExp(`^${String(scheme.scheme)} \\S+$`, 'i').test(header('authorization') ?? '');
    }),
  );
  return met ? [] : [`${where}: no credentials of the document's security schemes`];
}

/** Problems of a webhook request as a receiver got it: its event's body schema and header parameters. */
export function webhookProblems(headers: IncomingHeaders, body: Json): string[] {
  const event = String(body?.event);
  const op = contract.webhooks[event]?.post;
  if (!op) return [`webhook: no event named ${event} in the document`];
  const header = headerOf(headers);
  const where = `webhook ${event}`;
  const problems: string[] = [];
  for (const param of ((op.parameters ?? []) as Json[]).map(deref)) {
    const value = header(param.name);
    if (value === undefined || value === null) problems.push(`${where}: header ${param.name} missing`);
    else problems.push(...schemaProblems(param.schema, value, `${where} header ${param.name}`));
  }
  const media = deref(op.requestBody).content[mediaType(header('content-type'))];
  if (!media) return [...problems, `${where}: Content-Type ${String(header('content-type'))} is not the document's`];
  return [...problems, ...schemaProblems(media.schema, body, `${where} body`)];
}

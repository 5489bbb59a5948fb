/**
 * The client's zod schemas (src/api/schemas.ts) and the contract (docs/openapi.json) cannot disagree unseen: every
 * answer and event the document allows, its examples and cases generated from its schemas (unknown fields included),
 * parses with the zod schema the client reads it with. (The other way, what the sandbox builds from the zod schemas
 * conforming to the document, is openapi.test.ts.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  BalanceResponseSchema,
  CreateTaskResponseSchema,
  ErrorResponseSchema,
  ServicesResponseSchema,
  TaskItemSchema,
  TaskListResponseSchema,
  TaskResponseSchema,
  WebhookEventSchema,
} from '../../src/api/schemas.js';
import { parseTimestamp } from '../../src/lib/timestamp.js';
import { contract, deref, documentExamples, schemaProblems } from './openapi-check.js';
import type { Json } from './openapi-check.js';

/** Each body schema of the document's answers and events, and the zod schema the client parses it with. */
const CLIENT_SCHEMAS: Record<string, z.ZodType> = {
  ServicesResponse: ServicesResponseSchema,
  BalanceResponse: BalanceResponseSchema,
  CreateTaskResponse: CreateTaskResponseSchema,
  TaskListResponse: TaskListResponseSchema,
  TaskResponse: TaskResponseSchema,
  ErrorResponse: ErrorResponseSchema,
  UnauthorizedResponse: ErrorResponseSchema,
  ProcessingEvent: WebhookEventSchema,
  CompletedEvent: WebhookEventSchema,
  FailedEvent: WebhookEventSchema,
};

const SCHEMA_REF = '#/components/schemas/';
const named = (ref: string): Json => contract.components.schemas[ref.slice(SCHEMA_REF.length)];

/** The component name of every body the client reads: responses' JSON content and webhook request bodies. */
function bodiesRead(): Set<string> {
  const names = new Set<string>();
  const add = (media: Json) => {
    const ref = media?.['application/json']?.schema?.$ref;
    if (typeof ref === 'string') names.add(ref.slice(SCHEMA_REF.length));
  };
  for (const item of Object.values<Json>(contract.paths))
    for (const op of Object.values<Json>(item))
      for (const response of Object.values<Json>(op.responses)) add(deref(response).content);
  for (const item of Object.values<Json>(contract.webhooks)) add(deref(item.post.requestBody).content);
  return names;
}

/**
 * Every key a zod object shape declares, reached through the schemas above and the ones they check in place
 * (`TaskItemSchema`: a task's items are checked by its rules without it). A key the document leaves unnamed on an
 * object is drawn there as an unknown field of any JSON type, so zod cannot be stricter than the document there unseen.
 */
function zodKeys(schemas: readonly z.ZodType[]): Set<string> {
  const keys = new Set<string>();
  const seen = new Set<unknown>();
  const walk = (schema: unknown): void => {
    if (typeof schema !== 'object' || schema === null || seen.has(schema)) return;
    seen.add(schema);
    const def = (schema as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (def === undefined) return;
    if (def.type === 'object') {
      const shape = def.shape as Record<string, unknown>;
      for (const [key, inner] of Object.entries(shape)) {
        keys.add(key);
        walk(inner);
      }
    }
    if (def.type === 'lazy') walk((def.getter as () => unknown)());
    for (const part of ['in', 'out', 'innerType', 'element', 'left', 'right'] as const) walk(def[part]);
    for (const option of (def.options as unknown[] | undefined) ?? []) walk(option);
  };
  for (const schema of schemas) walk(schema);
  return keys;
}

/** Field names servers add that the document does not name (the sandbox's `extra-fields` dialect sends these)... */
const SERVER_EXTRAS = ['request_id', 'priority', 'labels', 'metadata', 'details', 'delivery_id'];
/** ...and every name the zod schemas read: where the document does not name one, it may carry anything. */
const UNKNOWN_FIELDS = [...new Set([...SERVER_EXTRAS, ...zodKeys([...Object.values(CLIENT_SCHEMAS), TaskItemSchema])])];
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** `allOf` folded into one object schema (the document uses it only to extend objects, or to rule a field out). */
function flatten(schema: Json): Json {
  const own = typeof schema.$ref === 'string' ? named(schema.$ref) : schema;
  if (!own.allOf) return own;
  const parts = [...(own.allOf as Json[]).map(flatten), { ...own, allOf: undefined }];
  return {
    type: 'object',
    required: parts.flatMap((part) => part.required ?? []),
    properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})),
  };
}

/** Values the schema allows, for the keywords the document uses (a keyword outside them fails the test). */
function arbitrary(input: Json): fc.Arbitrary<unknown> {
  const schema = flatten(input);
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.anyOf) return fc.oneof(...(schema.anyOf as Json[]).map(arbitrary));
  if (Array.isArray(schema.type))
    return fc.oneof(...(schema.type as string[]).map((type) => arbitrary({ ...schema, type })));
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -MAX_SAFE, max: schema.maximum ?? MAX_SAFE });
    case 'string':
      // The one pattern the document gives a generated value is Timestamp's (UTC), which the forms below all fit.
      if (schema.pattern && schema.pattern !== named(`${SCHEMA_REF}Timestamp`).pattern)
        throw new Error(`no generator for pattern ${String(schema.pattern)}`);
      if (schema.format === 'date-time')
        // UTC written three ways: with milliseconds and `Z`, whole seconds and `Z`, or the offset `+00:00`.
        return fc
          .tuple(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.constantFrom('Z', 'whole', '+00:00'))
          .map(([ms, form]) => {
            const iso = new Date(ms).toISOString();
            return form === 'Z' ? iso : form === 'whole' ? iso.replace(/\.\d+Z$/, 'Z') : iso.replace(/Z$/, '+00:00');
          });
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: 12 });
    case 'array':
      return fc.array(arbitrary(schema.items ?? {}), { maxLength: 3 });
    case 'object':
      return objectArbitrary(schema);
    case undefined:
      return fc.jsonValue({ maxDepth: 2 });
    default:
      throw new Error(`no generator for type ${String(schema.type)}`);
  }
}

/**
 * Required fields always, optional ones sometimes, and some fields the document does not name (never one it rules
 * out: a property whose schema is `false`).
 */
function objectArbitrary(schema: Json): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const known = Object.keys(properties);
  const names = known.filter((name) => properties[name] !== false);
  const model = Object.fromEntries(names.map((name) => [name, arbitrary(properties[name])]));
  const fields = fc.record(model, { requiredKeys: schema.required ?? [] });
  const unknownNames = known.length === 0 ? fc.string({ maxLength: 8 }) : fc.constantFrom(...UNKNOWN_FIELDS);
  const extra = fc.dictionary(
    unknownNames.filter((name) => !known.includes(name)),
    fc.jsonValue({ maxDepth: 1 }),
    { maxKeys: 3 },
  );
  return fc.tuple(extra, fields).map(([more, own]) => ({ ...more, ...own }));
}

function zodVerdict(schema: z.ZodType, value: unknown): string {
  const parsed = schema.safeParse(value);
  return parsed.success ? 'parsed' : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
}

describe('src/api/schemas.ts against docs/openapi.json', () => {
  it('has a zod schema for every body the client reads', () => {
    expect(new Set(Object.keys(CLIENT_SCHEMAS))).toEqual(bodiesRead());
  });

  it('draws unknown fields from every name the zod schemas read, not only from names servers add', () => {
    // An item's `error` and the webhook-only task fields are typed by zod and left unnamed by the document's Task.
    for (const name of [
      'error',
      'platform',
      'completed_items',
      'failed_items',
      'started_at',
      'failed_at',
      'error_message',
    ])
      expect(UNKNOWN_FIELDS).toContain(name);
  });

  it("parses every example of the document's answers and events", () => {
    const read = documentExamples().filter(([, schema]) => !String(schema.$ref).endsWith('/CreateTaskRequest'));
    expect(read.length).toBeGreaterThan(10);
    for (const [where, schema, value] of read) {
      const zod = CLIENT_SCHEMAS[String(schema.$ref).slice(SCHEMA_REF.length)];
      expect([where, zod ? zodVerdict(zod, value) : 'no zod schema']).toEqual([where, 'parsed']);
    }
  });

  it('reads a timestamp in every form the document allows as the same UTC instant (Z, whole seconds, +00:00)', () => {
    const forms = new Set<string>();
    fc.assert(
      fc.property(arbitrary(named(`${SCHEMA_REF}Timestamp`)), (value) => {
        const text = String(value);
        forms.add(text.endsWith('+00:00') ? '+00:00' : /\.\d+Z$/.test(text) ? 'ms' : 'whole');
        expect(schemaProblems(named(`${SCHEMA_REF}Timestamp`), value, 'Timestamp')).toEqual([]);
        expect(parseTimestamp(text)).toBe(Date.parse(text.replace(/\+00:00$/, 'Z')));
        expect(parseTimestamp(text)).toEqual(expect.any(Number));
      }),
      { numRuns: 200 },
    );
    expect([...forms].sort()).toEqual(['+00:00', 'ms', 'whole']);
  });

  it('allows a timestamp only in UTC', () => {
    const timestamp = named(`${SCHEMA_REF}Timestamp`);
    for (const utc of ['2025-01-15T09:30:00.000Z', '2025-01-15T09:30:00Z', '2025-01-15T09:30:00+00:00'])
      expect([utc, schemaProblems(timestamp, utc, 'Timestamp')]).toEqual([utc, []]);
    for (const other of ['2025-01-15T09:30:00+02:00', '2025-01-15T09:30:00-05:00', '2025-01-15T09:30:00'])
      expect([other, schemaProblems(timestamp, other, 'Timestamp')]).not.toEqual([other, []]);
  });

  it.each(Object.entries(CLIENT_SCHEMAS))('parses whatever the document allows for %s', (name, zod) => {
    const schema = named(SCHEMA_REF + name);
    fc.assert(
      fc.property(arbitrary(schema), (value) => {
        // The generator makes only values the document allows; the zod schema must take each one.
        expect(schemaProblems(schema, value, name)).toEqual([]);
        expect(zodVerdict(zod, value)).toBe('parsed');
      }),
      { numRuns: 100 },
    );
  });
});

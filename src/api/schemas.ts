/**
 * The API contract as zod schemas: the client parses every response with these and the sandbox
 * serialises every response through them, so a contract change breaks both sides' tests.
 * Data objects keep unknown fields (`z.looseObject`): the contract (docs/openapi.json) lets objects carry more, and `-o json|ndjson` print the API's data as it
 * came; only the fields the client reads are validated. Types are inferred, never written by hand.
 *
 * Every schema is built on first use (`z.lazy`, which parses exactly as the schema it wraps; helpers are functions):
 * building them all when the module loads cost every command ~10 ms of start-up, and `balance` parses with one.
 */
import * as z from '../lib/zod.js';
import { ExactInteger } from '../lib/exact-json.js';
import { typeWords } from '../lib/schema-words.js';
import { WIRE_FIELDS, WIRE_ID } from '../lib/wire-id.js';

const int = () => z.number().int();
/**
 * A count or a price the answer wrote past 2^53 (kept by its digits when read: lib/exact-json.ts) is read as the
 * double it rounds to, as JSON.parse reads it; only result data keeps the digits, for output and `diff`.
 */
const rounded = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value instanceof ExactInteger ? Number(value.digits) : value), schema);
/** Ends the message of an id beyond 2^53; the judge then names the digits the server sent (JSON.parse rounded them). */
export const UNSAFE_ID_MARK = 'the raw value may differ';
/**
 * Task ids are integers; a numeric string is accepted as the same id (a harmless variant), and kept as the server's
 * string for JSON output (WIRE_ID). A number beyond 2^53 is refused: a double cannot hold it exactly, so reading it
 * would name another task (exit 8, naming the digits sent).
 */
const taskId = () =>
  z.preprocess((value, ctx) => {
    if (!(value instanceof ExactInteger)) return value;
    ctx.addIssue({
      code: 'custom',
      message: `task id ${value.digits} is beyond 2^53, where a task id cannot be held exactly`,
      input: value,
    });
    return z.NEVER;
  }, taskIdValue());
const taskIdValue = () =>
  z.union([
    // One issue per value (zod's int() would call 2^53 + 1 merely "too big", and a second issue would hide this one).
    z.number().superRefine((value, ctx) => {
      const message = !Number.isInteger(value)
        ? `should be a whole number, not ${String(value)}`
        : value < 0
          ? 'should be at least 0'
          : Number.isSafeInteger(value)
            ? undefined
            : `${String(value)} is beyond 2^53, where a task id cannot be held exactly (${UNSAFE_ID_MARK})`;
      if (message !== undefined) ctx.addIssue({ code: 'custom', message });
    }),
    // A string that is not a whole number is what it was before strings were accepted: not the expected number.
    z.string().regex(/^\d{1,15}$/, { message: typeWords('number', '') }),
  ]);
const timestamp = () => z.string().min(1);

/** Task states docs/openapi.json shows (#/components/schemas/Task: status); other strings are tolerated and treated as non-terminal. */
export const KNOWN_TASK_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;

const ServiceSchema = z.lazy(() =>
  z.looseObject({
    service: z.string().min(1),
    display_name: z.string(),
    description: z.string(),
    pricing: rounded(z.number().nonnegative()),
    currency: z.string(),
  }),
);
export type Service = z.infer<typeof ServiceSchema>;

const balanceShape = () => ({ balance: rounded(z.number()), currency: z.string() });
export type Balance = z.infer<z.ZodObject<ReturnType<typeof balanceShape>, z.core.$loose>>;

/** One item as docs/openapi.json shows it (#/components/schemas/TaskItem); `TaskSchema` checks items in place by the same rules (a test holds them equal). */
export const TaskItemSchema = z.lazy(() =>
  z.looseObject({
    target: z.string(),
    status: z.string(),
    /** Result of processing: any JSON value (the document's example is domain_check_availability's `{available}`). */
    data: z.unknown().optional(),
    /**
     * Not named by docs/openapi.json, so any JSON value (the sandbox sends a string on failed items; `{code, message}`
     * is common). Read through `errorText` (lib/item-error.ts); never part of an item's outcome.
     */
    error: z.unknown().optional(),
  }),
);
export type TaskItem = z.infer<typeof TaskItemSchema>;

/** What TaskItemSchema would say about one item, checked in place: the first problem, or undefined. */
function itemIssue(item: unknown): { path: PropertyKey[]; expected: string; value: unknown } | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item))
    return { path: [], expected: 'object', value: item };
  const record = item as Record<string, unknown>;
  if (typeof record.target !== 'string') return { path: ['target'], expected: 'string', value: record.target };
  if (typeof record.status !== 'string') return { path: ['status'], expected: 'string', value: record.status };
  return undefined;
}

/**
 * A task's items, validated like `z.array(TaskItemSchema)` (same rules, same messages) but in place: the items are
 * returned as parsed, never copied. A 1,000,000-item answer within the body cap would otherwise be held twice.
 */
const taskItems = () =>
  z
    .custom<TaskItem[]>((value) => Array.isArray(value), { error: (issue) => typeWords('array', issue.input) })
    .superRefine((items, ctx) => {
      for (let i = 0; i < items.length; i++) {
        const issue = itemIssue(items[i]);
        if (issue === undefined) continue;
        ctx.addIssue({
          code: 'custom',
          path: [i, ...issue.path],
          message: typeWords(issue.expected, issue.value),
        });
        return;
      }
    });

const isText = (value: unknown) => typeof value === 'string';
const isTime = (value: unknown) => typeof value === 'string' && value !== '';
const isCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * Fields docs/openapi.json names only on webhook task objects (#/components/schemas/WebhookTask), read when an API
 * answer carries them too. The document's Task leaves them unnamed, so there they may hold anything: a value of
 * another type than the webhook's is not read (undefined inside taskctl, as if absent) and never refuses the answer;
 * JSON output still shows it as sent (WIRE_FIELDS).
 */
const WEBHOOK_ONLY = {
  platform: isText,
  completed_items: isCount,
  failed_items: isCount,
  started_at: isTime,
  failed_at: isTime,
  error_message: isText,
} as const;
/** The webhook-only fields as taskctl reads them on a task. */
interface WebhookOnlyFields {
  platform?: string | null | undefined;
  completed_items?: number | null | undefined;
  failed_items?: number | null | undefined;
  started_at?: string | null | undefined;
  failed_at?: string | null | undefined;
  error_message?: string | null | undefined;
}

/** The task with the webhook-only fields it cannot read set to undefined (kept under WIRE_FIELDS), or itself. */
function readableFields<T extends Record<string, unknown>>(task: T): T {
  let unread: Record<string, unknown> | undefined;
  for (const [key, reads] of Object.entries(WEBHOOK_ONLY)) {
    const value = task[key];
    if (value === undefined || value === null || reads(value)) continue;
    (unread ??= {})[key] = value;
  }
  if (unread === undefined) return task;
  const cleared = Object.fromEntries(Object.keys(unread).map((key) => [key, undefined]));
  return { ...task, ...cleared, [WIRE_FIELDS]: unread };
}

export const TaskSchema = z.lazy(() =>
  z
    .looseObject({
      id: taskId(),
      service: z.string(),
      status: z.string().min(1),
      total_items: rounded(int().nonnegative()),
      cost: rounded(z.number().nonnegative()),
      created_at: timestamp(),
      completed_at: timestamp().nullable().optional(),
      /** Present only in GET /tasks/:id. */
      items: taskItems().optional(),
    })
    .transform((parsed) => {
      const task = readableFields(parsed) as typeof parsed & WebhookOnlyFields;
      if (typeof task.id === 'number') return task as typeof task & { id: number };
      // A string id: a number inside taskctl, the server's string in JSON output.
      return { ...task, id: Number(task.id), [WIRE_ID]: task.id };
    }),
);
export type Task = z.infer<typeof TaskSchema>;

export const PageMetaSchema = z.lazy(() =>
  z.looseObject({
    current_page: rounded(int().positive()),
    total_pages: rounded(int().nonnegative()),
    total_count: rounded(int().nonnegative()),
    per_page: rounded(int().positive()),
  }),
);
export type PageMeta = z.infer<typeof PageMetaSchema>;

const servicesMeta = () => z.looseObject({ total: rounded(int().nonnegative()), currency: z.string() });

// ---- Response bodies, per endpoint ----

export const ServicesResponseSchema = z.lazy(() =>
  z.object({
    success: z.literal(true),
    data: z.array(ServiceSchema),
    meta: servicesMeta().optional(),
  }),
);

/** Reference form `{success, data: {balance, currency}}`, or the top-level balance variant with both fields beside `success`. */
export const BalanceResponseSchema = z.lazy(() =>
  z.union([
    z.object({ success: z.literal(true), data: z.looseObject(balanceShape()) }),
    z
      .looseObject({ success: z.literal(true) })
      .extend(balanceShape())
      // The top level is the balance object here: its other fields are the balance's (`success` is the envelope's).
      .transform(({ success, ...data }) => ({ success, data })),
  ]),
);

/** The body of `POST /tasks`: written by the client, never parsed by it (the items are checked before, in core/items). */
export interface CreateTaskRequest {
  service: string;
  items: string[];
}

export const CreateTaskResponseSchema = z.lazy(() =>
  z.object({
    success: z.literal(true),
    message: z.string().optional(),
    data: TaskSchema,
  }),
);

export const TaskListResponseSchema = z.lazy(() =>
  z.object({
    success: z.literal(true),
    data: z.array(TaskSchema),
    meta: PageMetaSchema,
  }),
);

export const TaskResponseSchema = z.lazy(() => z.object({ success: z.literal(true), data: TaskSchema }));

/**
 * Failure bodies: reference `{success:false, error:{code, message}}`, or the string-error variant
 * `{success:false, error:"unauthorized", message:"..."}`. Both normalise to `{code, message}`.
 */
export const ErrorResponseSchema = z.lazy(() =>
  z.union([
    z
      .object({
        success: z.literal(false).optional(),
        error: z.object({ code: z.string(), message: z.string().optional().default('') }),
      })
      .transform((body) => ({ code: body.error.code, message: body.error.message })),
    z
      .object({
        success: z.literal(false).optional(),
        error: z.string(),
        message: z.string().optional().default(''),
      })
      .transform((body) => ({ code: body.error, message: body.message })),
  ]),
);
export type ApiErrorBody = z.output<typeof ErrorResponseSchema>;

/**
 * Error codes docs/openapi.json lists (#/components/schemas/ErrorCode), plus `rate_limited` (the sandbox's choice for
 * 429; the document leaves the answer to an exceeded limit open).
 */
export const ERROR_CODES = [
  'unauthorized',
  'not_found',
  'validation_error',
  'insufficient_balance',
  'internal_error',
  'rate_limited',
] as const;

// ---- Webhooks ----

const webhookTaskBase = () => ({
  id: int().nonnegative(),
  service: z.string(),
  platform: z.string(),
  total_items: int().nonnegative(),
  completed_items: int().nonnegative(),
  failed_items: int().nonnegative(),
  cost: z.number().nonnegative(),
  created_at: timestamp(),
});

export const WebhookEventSchema = z.lazy(() =>
  z.discriminatedUnion('event', [
    z.object({
      event: z.literal('processing'),
      timestamp: timestamp(),
      task: z.object({ ...webhookTaskBase(), status: z.string(), started_at: timestamp() }),
    }),
    z.object({
      event: z.literal('completed'),
      timestamp: timestamp(),
      task: z.object({ ...webhookTaskBase(), status: z.string(), completed_at: timestamp() }),
    }),
    z.object({
      event: z.literal('failed'),
      timestamp: timestamp(),
      task: z.object({
        ...webhookTaskBase(),
        status: z.string(),
        error_message: z.string(),
        failed_at: timestamp(),
      }),
    }),
  ]),
);
export type WebhookEvent = z.infer<typeof WebhookEventSchema>;

/** `taskctl api`: any body at all (the client returns its text; the judge still checks a 2xx declared JSON parses). */
export const AnyBodySchema = z.lazy(() => z.unknown());

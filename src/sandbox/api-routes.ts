/** The /api/v1 endpoints: route table and handlers. Every success body goes through the shared zod schemas. */
import type { IncomingMessage } from 'node:http';
import {
  BalanceResponseSchema,
  CreateTaskResponseSchema,
  ServicesResponseSchema,
  TaskListResponseSchema,
  TaskResponseSchema,
} from '../api/schemas.js';
import { errorReply, isJsonContentType, jsonReply, readBody } from './http.js';
import type { BodyResult, Reply } from './http.js';
import type { Dialects } from './dialects.js';
import { findService, SERVICES } from './simulated-services.js';
import { itemChecker } from '../lib/items/rules.js';
import { jsonSyntaxWords } from '../lib/json-locate.js';
import { quoteForMessage } from '../lib/sanitize.js';
import type { SandboxState } from './state.js';
import { createdTaskView, taskDetailView, taskView } from './task-view.js';
import type { TaskRecord } from './timeline.js';

export const API_PREFIX = '/api/v1';
const MAX_ITEM_LENGTH = 2048;
const DEFAULT_PER_PAGE = 25;
const MAX_PER_PAGE = 100;

export interface ApiContext {
  state: SandboxState;
  now: () => number;
  seed: string;
  itemMs: number;
  maxItems: number;
  /** Arms the lifecycle timers (webhook events) of a new task. */
  taskCreated: (task: TaskRecord) => void;
  /** Variants to answer in; reshape bodies after they are checked against the schemas. */
  dialects: Dialects;
}

/** `body`: the request body when the server already read it (a `delay` fault reads it before waiting). */
type Handler = (
  req: IncomingMessage,
  ctx: ApiContext,
  query: string,
  id: string,
  body?: Promise<BodyResult>,
) => Reply | Promise<Reply>;

export interface ApiRoute {
  /** As counted in stats: `/api/v1/tasks/:id`. */
  pattern: string;
  methods: Readonly<Record<string, Handler>>;
  /** Value of the `Allow` header on 405. */
  allow: string;
}

// The catalogue never changes, so its body is validated once.
const servicesResponse = ServicesResponseSchema.parse({
  success: true,
  data: SERVICES.map(({ service, display_name, description, pricing, currency }) => ({
    service,
    display_name,
    description,
    pricing,
    currency,
  })),
  meta: { total: SERVICES.length, currency: 'coins' },
});
const servicesBody = JSON.stringify(servicesResponse);

const listServices: Handler = (_req, ctx) =>
  !ctx.dialects.active
    ? { status: 200, body: servicesBody }
    : jsonReply(200, ctx.dialects.envelope(servicesResponse, 'services'));

const getBalance: Handler = (_req, ctx) => {
  const response = BalanceResponseSchema.parse({
    success: true,
    data: { balance: ctx.state.balance, currency: 'coins' },
  });
  return jsonReply(200, ctx.dialects.active ? ctx.dialects.envelope(response, 'balance') : response);
};

/** The first item the service's rule refuses (the client's own check, lib/items/rules.ts), as a message; else undefined. */
function invalidItem(service: string, items: readonly string[]): string | undefined {
  const check = itemChecker(service);
  for (let i = 0; i < items.length; i++) {
    const checked = check(items[i] ?? '');
    if (!checked.ok) return `items[${i}] ${quoteForMessage(items[i] ?? '')}: ${checked.reason}`;
  }
  return undefined;
}

interface CreateRequest {
  service: string;
  items: string[];
  /** The one-target body's `platform`, checked against the service's. */
  platform?: string;
}

/** A non-empty string field of a create body, or the message saying what is wrong with it. */
function requiredText(value: unknown, name: string): string | { message: string } {
  if (value === undefined || value === null) return { message: `${name} is required` };
  if (typeof value !== 'string' || value.trim() === '') return { message: `${name} must be a non-empty string` };
  return value;
}

/**
 * The contract's one-target create body (docs/openapi.json: CreateTaskRequest, its second form): `platform`,
 * `service_name` and one `target`, taken as a task of that one item.
 */
function validateOneTarget(body: Record<string, unknown>): CreateRequest | string {
  const platform = requiredText(body.platform, 'platform');
  if (typeof platform !== 'string') return platform.message;
  const service = requiredText(body.service_name, 'service_name');
  if (typeof service !== 'string') return service.message;
  const target = requiredText(body.target, 'target');
  if (typeof target !== 'string') return target.message;
  if (target.length > MAX_ITEM_LENGTH) return `target is longer than ${MAX_ITEM_LENGTH} characters`;
  return { service, items: [target], platform };
}

/** The one-target body's target, if the service's rule refuses it, as a message; else undefined. */
function invalidTarget(service: string, items: readonly string[]): string | undefined {
  const message = invalidItem(service, items);
  return message?.replace(/^items\[0\]/, 'target');
}

/** A validated create request, or the message of the first problem found. */
function validateCreate(body: unknown, maxItems: number): CreateRequest | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'request body must be a JSON object';
  const record = body as Record<string, unknown>;
  const { service, items } = record;
  const oneTarget = service === undefined && items === undefined && ('service_name' in record || 'target' in record);
  if (oneTarget) return validateOneTarget(record);
  if (service === undefined || service === null) return 'service is required';
  if (typeof service !== 'string' || service.trim() === '') return 'service must be a non-empty string';
  if (items === undefined || items === null) return 'items is required';
  if (!Array.isArray(items)) return 'items must be an array of strings';
  if (items.length === 0) return 'items must not be empty';
  if (items.length > maxItems) return `too many items: ${items.length} (max ${maxItems})`;
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    if (typeof item !== 'string') return `items[${i}] must be a string`;
    if (item.trim() === '') return `items[${i}] must not be empty`;
    if (item.length > MAX_ITEM_LENGTH) return `items[${i}] is longer than ${MAX_ITEM_LENGTH} characters`;
  }
  return { service, items: items as string[] };
}

const createTask: Handler = async (req, ctx, _query, _id, preRead) => {
  if (!isJsonContentType(req.headers['content-type'])) {
    return errorReply(415, 'validation_error', 'Content-Type must be application/json');
  }
  const body = await (preRead ?? readBody(req));
  if (!body.ok) return body.reply;
  let json: unknown;
  try {
    json = JSON.parse(body.text);
  } catch {
    return errorReply(
      422,
      'validation_error',
      `request body is not valid JSON (${jsonSyntaxWords(body.text)}); send a JSON object: {"service": NAME, "items": [...]}`,
    );
  }
  const request = validateCreate(json, ctx.maxItems);
  if (typeof request === 'string') return errorReply(422, 'validation_error', request);
  const service = findService(request.service);
  if (!service) return errorReply(404, 'not_found', `Service '${request.service.slice(0, 100)}' not found`);
  if (request.platform !== undefined && request.platform !== service.platform) {
    const platform = quoteForMessage(request.platform);
    const message = `platform ${platform} is not the platform of ${service.service} (${service.platform})`;
    return errorReply(422, 'validation_error', message);
  }
  const invalid =
    request.platform === undefined
      ? invalidItem(service.service, request.items)
      : invalidTarget(service.service, request.items);
  if (invalid !== undefined) return errorReply(422, 'validation_error', invalid);
  const cost = service.pricing * request.items.length;
  if (ctx.state.balance < cost) {
    return errorReply(
      402,
      'insufficient_balance',
      `Insufficient balance: ${ctx.state.balance} coins available, ${cost} required`,
    );
  }
  const task = ctx.state.createTask(service.service, service.platform, request.items, cost, ctx.now(), ctx.itemMs);
  ctx.taskCreated(task);
  const response = CreateTaskResponseSchema.parse({
    success: true,
    message: 'Task created successfully',
    data: createdTaskView(task),
  });
  const data = ctx.dialects.task(response.data, task, ctx.now());
  return jsonReply(ctx.dialects.createdStatus(), ctx.dialects.envelope({ ...response, data }, 'create'));
};

/** A query parameter as an integer in [1, max], its default when absent, or undefined when invalid. */
function intParam(params: URLSearchParams, name: string, fallback: number, max: number): number | undefined {
  const raw = params.get(name);
  if (raw === null) return fallback;
  if (!/^\d{1,15}$/.test(raw)) return undefined;
  const value = Number(raw);
  return value >= 1 && value <= max ? value : undefined;
}

const listTasks: Handler = (_req, ctx, query) => {
  const params = new URLSearchParams(query);
  const page = intParam(params, 'page', 1, Number.MAX_SAFE_INTEGER);
  if (page === undefined) return errorReply(422, 'validation_error', 'page must be a positive integer');
  // per-page-clamp: a larger per_page is served as the maximum instead of refused.
  const clamp = ctx.dialects.has('per-page-clamp');
  const asked = intParam(params, 'per_page', DEFAULT_PER_PAGE, clamp ? Number.MAX_SAFE_INTEGER : MAX_PER_PAGE);
  const perPage = asked === undefined ? undefined : Math.min(asked, MAX_PER_PAGE);
  if (perPage === undefined) {
    return errorReply(422, 'validation_error', `per_page must be an integer from 1 to ${MAX_PER_PAGE}`);
  }
  const { tasks } = ctx.state;
  const total = tasks.length;
  const now = ctx.now();
  const records: TaskRecord[] = [];
  // Newest first: page 1 starts at the end of the creation-ordered array.
  const first = total - 1 - (page - 1) * perPage;
  for (let i = first; i >= 0 && i > first - perPage; i--) {
    const record = tasks[i];
    if (record) records.push(record);
  }
  const response = TaskListResponseSchema.parse({
    success: true,
    data: records.map((record) => taskView(record, now)),
    meta: { current_page: page, total_pages: Math.ceil(total / perPage), total_count: total, per_page: perPage },
  });
  if (!ctx.dialects.active) return jsonReply(200, response);
  // The schema keeps the array's order, so each view sits at its record's index.
  const data = records.map((record, i) => ctx.dialects.task(response.data[i] ?? taskView(record, now), record, now));
  return jsonReply(200, ctx.dialects.envelope({ ...response, data }, 'list'));
};

const getTask: Handler = (_req, ctx, _query, id) => {
  const task = /^\d{1,15}$/.test(id) ? ctx.state.getTask(Number(id)) : undefined;
  if (!task) return errorReply(404, 'not_found', `Task ${id.slice(0, 100)} not found`);
  const now = ctx.now();
  const response = TaskResponseSchema.parse({ success: true, data: taskDetailView(task, now, ctx.seed) });
  if (!ctx.dialects.active) return jsonReply(200, response);
  const data = ctx.dialects.task(response.data, task, now);
  return jsonReply(200, ctx.dialects.envelope({ ...response, data }, 'task'));
};

function route(pattern: string, methods: Record<string, Handler>): ApiRoute {
  return { pattern, methods, allow: Object.keys(methods).join(', ') };
}

const STATIC_ROUTES = new Map<string, ApiRoute>([
  [`${API_PREFIX}/services`, route(`${API_PREFIX}/services`, { GET: listServices })],
  [`${API_PREFIX}/balance`, route(`${API_PREFIX}/balance`, { GET: getBalance })],
  [`${API_PREFIX}/tasks`, route(`${API_PREFIX}/tasks`, { GET: listTasks, POST: createTask })],
]);
const TASK_ROUTE = route(`${API_PREFIX}/tasks/:id`, { GET: getTask });
const TASK_PATH = `${API_PREFIX}/tasks/`;

/** The route of an /api/v1 path and its `:id`, or undefined for an unknown path. */
export function matchApiRoute(path: string): { route: ApiRoute; id: string } | undefined {
  const exact = STATIC_ROUTES.get(path);
  if (exact) return { route: exact, id: '' };
  if (path.startsWith(TASK_PATH)) {
    const rawId = path.slice(TASK_PATH.length);
    if (rawId !== '' && !rawId.includes('/')) {
      let id = rawId;
      try {
        id = decodeURIComponent(rawId);
      } catch {
        // Malformed percent-encoding: keep the raw text; it is not a task id either way.
      }
      return { route: TASK_ROUTE, id };
    }
  }
  return undefined;
}

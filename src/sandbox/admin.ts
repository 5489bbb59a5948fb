/** The dashboard's part of the service (`/__sandbox/*`): loopback only, no key, plain JSON in and out. */
import type { IncomingMessage } from 'node:http';
import { TaskSchema } from '../api/schemas.js';
import type { WebhookEvent } from '../api/schemas.js';
import { toWebhookEvent } from '../api/task-event.js';
import { jsonSyntaxWords } from '../lib/json-locate.js';
import { taskVerdict } from '../lib/task-state.js';
import { isDeliveryState } from './delivery-log.js';
import { parseFault } from './faults.js';
import type { FaultInjector } from './faults.js';
import { errorReply, jsonReply, readBody } from './http.js';
import type { Reply } from './http.js';
import { checkWebhookUrl } from './loopback.js';
import type { SandboxState } from './state.js';
import type { RequestStats } from './stats.js';
import { taskDetailView, taskView } from './task-view.js';
import type { WebhookDispatcher } from './webhooks.js';

export const ADMIN_PREFIX = '/__sandbox';
const MAX_ADMIN_BODY = 1024 * 1024;

export interface AdminContext {
  state: SandboxState;
  stats: RequestStats;
  faults: FaultInjector;
  webhooks: WebhookDispatcher;
  now: () => number;
  /** The results' seed, for one task's items (`/tasks/:id`). */
  seed: string;
}

/** `params` are the query string's; `id` is the `:id` of a route in ID_ROUTES. */
type AdminHandler = (
  ctx: AdminContext,
  body: Record<string, unknown>,
  params: URLSearchParams,
  id: string,
) => Reply | Promise<Reply>;

const DEFAULT_PER_PAGE = 25;
const MAX_PER_PAGE = 100;

/** A whole number within [min, max] from the query, `fallback` when absent; undefined when invalid. */
function intParam(params: URLSearchParams, name: string, fallback: number, min: number, max: number) {
  const text = params.get(name);
  if (text === null) return fallback;
  if (!/^\d{1,16}$/.test(text)) return undefined;
  const value = Number(text);
  return value >= min && value <= max ? value : undefined;
}

/** The test event: `completed` for the newest task (as if it had completed now), or for a made-up task 0. */
function testEvent({ state, now }: AdminContext): WebhookEvent {
  const at = now();
  const newest = state.tasks[state.tasks.length - 1];
  const task = newest
    ? TaskSchema.parse(taskView(newest, at))
    : {
        id: 0,
        service: 'domain_check_availability',
        platform: 'domain',
        status: 'completed',
        total_items: 1,
        completed_items: 1,
        failed_items: 0,
        cost: 1,
        created_at: new Date(at).toISOString(),
        completed_at: new Date(at).toISOString(),
      };
  const event = toWebhookEvent(
    { ...task, status: 'completed', completed_at: task.completed_at ?? new Date(at).toISOString() },
    at,
  );
  // toWebhookEvent builds `completed` for a completed status: never undefined here.
  if (!event) throw new Error('no test event');
  return event;
}

const invalid = (message: string): Reply => errorReply(422, 'validation_error', message);

/** 409 for a conditional set whose expected URL is no longer the sandbox's; the URL in force comes with it. */
function webhookConflict(current: string | null, expected: string | null): Reply {
  const name = (url: string | null) => url ?? 'none';
  const message = `the webhook URL is ${name(current)}, not ${name(expected)} as expected; nothing was changed`;
  return jsonReply(409, { success: false, error: { code: 'conflict', message }, webhookUrl: current });
}

const ROUTES: Record<string, Record<string, AdminHandler>> = {
  '/state': {
    GET: ({ state, now }, _body, params) => {
      const { balance, apiKey, webhookUrl } = state;
      const taskCount = state.tasks.length;
      // `?tasks=false` leaves the task list out: the dashboard pages through /tasks instead.
      if (params.get('tasks') === 'false') return jsonReply(200, { balance, apiKey, webhookUrl, taskCount });
      const at = now();
      const tasks = state.tasks.map((task) => TaskSchema.parse(taskView(task, at)));
      return jsonReply(200, { balance, apiKey, webhookUrl, taskCount, tasks });
    },
  },
  '/tasks': {
    GET: ({ state, now }, _body, params) => {
      const page = intParam(params, 'page', 1, 1, Number.MAX_SAFE_INTEGER);
      if (page === undefined) return invalid('page must be a positive integer');
      const perPage = intParam(params, 'per_page', DEFAULT_PER_PAGE, 1, MAX_PER_PAGE);
      if (perPage === undefined) return invalid(`per_page must be an integer from 1 to ${MAX_PER_PAGE}`);
      const { tasks } = state;
      const total = tasks.length;
      const at = now();
      const shown = [];
      // Newest first, like GET /api/v1/tasks: only this page's records are read.
      const first = total - 1 - (page - 1) * perPage;
      for (let i = first; i >= 0 && i > first - perPage; i--) {
        const record = tasks[i];
        // Each with its verdict by the CLI's own vocabulary, so the dashboard colours a task as `list` does.
        if (record) {
          const task = TaskSchema.parse(taskView(record, at));
          shown.push({ ...task, verdict: taskVerdict(task) });
        }
      }
      const meta = {
        current_page: page,
        total_pages: Math.ceil(total / perPage),
        total_count: total,
        per_page: perPage,
      };
      return jsonReply(200, { tasks: shown, meta });
    },
  },
  '/tasks/:id': {
    // One task with its items, as GET /api/v1/tasks/:id shows it, and its verdict: what the dashboard shows when opened.
    GET: ({ state, now, seed }, _body, _params, id) => {
      const record = /^\d{1,15}$/.test(id) ? state.getTask(Number(id)) : undefined;
      if (!record) return errorReply(404, 'not_found', `Task ${id.slice(0, 100)} not found`);
      const task = TaskSchema.parse(taskDetailView(record, now(), seed));
      return jsonReply(200, { task: { ...task, verdict: taskVerdict(task) } });
    },
  },
  '/balance': {
    POST: ({ state }, { balance }) => {
      if (typeof balance !== 'number' || !Number.isSafeInteger(balance) || balance < 0) {
        return invalid('balance must be a non-negative integer');
      }
      state.setBalance(balance);
      return jsonReply(200, { balance: state.balance });
    },
  },
  '/rotate-key': {
    POST: ({ state }, { apiKey }) => {
      if (apiKey !== undefined && (typeof apiKey !== 'string' || !/^[\x21-\x7e]{4,200}$/.test(apiKey))) {
        return invalid('apiKey must be 4 to 200 printable characters without spaces');
      }
      return jsonReply(200, { apiKey: state.rotateKey(apiKey) });
    },
  },
  '/webhook': {
    // With `expected`, a conditional set: only when the URL is still that one (409 otherwise), so a listener putting
    // its URL back in one request never overwrites a change made meanwhile
    // (docs/sandbox.md#admin-api-__sandbox-and-the-dashboard-).
    POST: ({ state }, body) => {
      const { url } = body;
      if (url !== null && typeof url !== 'string') return invalid('url must be a string, or null to clear it');
      const problem = url === null ? undefined : checkWebhookUrl(url);
      if (problem) return invalid(problem);
      if (Object.hasOwn(body, 'expected')) {
        const { expected } = body;
        if (expected !== null && typeof expected !== 'string') {
          return invalid('expected must be a string, or null for no URL');
        }
        if (state.webhookUrl !== expected) return webhookConflict(state.webhookUrl, expected);
      }
      state.setWebhookUrl(url);
      return jsonReply(200, { webhookUrl: state.webhookUrl });
    },
  },
  '/deliveries': {
    GET: ({ webhooks }, _body, params) => {
      const state = params.get('state');
      if (state !== null && !isDeliveryState(state)) {
        return invalid('state must be one of sending, retrying, delivered, abandoned');
      }
      const limit = intParam(params, 'limit', Number.MAX_SAFE_INTEGER, 1, Number.MAX_SAFE_INTEGER);
      if (limit === undefined) return invalid('limit must be a positive integer');
      const deliveries = webhooks.log.list(state ?? undefined);
      // The newest `limit`, still oldest first.
      return jsonReply(200, { deliveries: deliveries.slice(Math.max(0, deliveries.length - limit)) });
    },
  },
  '/deliveries/:id/replay': {
    POST: async ({ webhooks }, _body, _params, id) => {
      const delivery = /^\d{1,15}$/.test(id) ? await webhooks.replay(Number(id)) : undefined;
      if (!delivery) return errorReply(404, 'not_found', `No delivery ${id.slice(0, 100)} (only the latest are kept)`);
      return jsonReply(200, { delivery });
    },
  },
  '/webhook/test': {
    POST: async (ctx) => {
      const url = ctx.state.webhookUrl;
      if (url === null) return invalid('no webhook URL is set; set one first (POST /__sandbox/webhook {url})');
      return jsonReply(200, { delivery: await ctx.webhooks.test(url, testEvent(ctx)) });
    },
  },
  '/stats': {
    GET: ({ stats }) => jsonReply(200, stats.snapshot()),
  },
  '/stats/reset': {
    POST: ({ stats }) => {
      stats.reset();
      return jsonReply(200, stats.snapshot());
    },
  },
  '/faults': {
    GET: ({ faults }) => jsonReply(200, { faults: faults.list() }),
    POST: ({ faults }, body) => {
      const parsed = parseFault(body);
      if ('error' in parsed) return invalid(parsed.error);
      const fault = faults.add(parsed.fault);
      return jsonReply(201, { fault, faults: faults.list() });
    },
    DELETE: ({ faults }) => {
      faults.clear();
      return jsonReply(200, { faults: [] });
    },
  },
};

/** The routes with an `:id` in their path: how to match one, and its entry in ROUTES. */
const ID_ROUTES: ReadonlyArray<[RegExp, string]> = [
  [/^\/deliveries\/([^/]+)\/replay$/, '/deliveries/:id/replay'],
  [/^\/tasks\/([^/]+)$/, '/tasks/:id'],
];

function route(sub: string): { key: string; id: string } {
  for (const [pattern, key] of ID_ROUTES) {
    const match = pattern.exec(sub);
    if (match) return { key, id: match[1] ?? '' };
  }
  return { key: sub, id: '' };
}

/** Handles one `/__sandbox/...` request (the caller has checked that it comes from loopback). */
export async function handleAdmin(
  req: IncomingMessage,
  path: string,
  query: string,
  ctx: AdminContext,
): Promise<Reply> {
  const { key, id } = route(path.slice(ADMIN_PREFIX.length));
  const methods = ROUTES[key];
  if (!methods) return errorReply(404, 'not_found', `No admin endpoint ${path}`);
  const method = req.method ?? 'GET';
  const handler = methods[method];
  if (!handler) {
    const allow = Object.keys(methods).join(', ');
    return errorReply(405, 'method_not_allowed', `${method} is not allowed on ${path}; use ${allow}`, { Allow: allow });
  }
  let body: Record<string, unknown> = {};
  if (method === 'POST') {
    const read = await readBody(req, MAX_ADMIN_BODY);
    if (!read.ok) return read.reply;
    if (read.text.trim() !== '') {
      let json: unknown;
      try {
        json = JSON.parse(read.text);
      } catch {
        return invalid(
          `request body is not valid JSON (${jsonSyntaxWords(read.text)}); send a JSON object, or no body`,
        );
      }
      if (typeof json !== 'object' || json === null || Array.isArray(json))
        return invalid('request body must be a JSON object');
      body = json as Record<string, unknown>;
    }
  }
  return handler(ctx, body, new URLSearchParams(query), id);
}

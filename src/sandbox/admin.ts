/** The dashboard's part of the service (`/__sandbox/*`): loopback only, no key, plain JSON in and out. */
import type { IncomingMessage } from 'node:http';
import { TaskSchema } from '../api/schemas.js';
import { parseFault } from './faults.js';
import type { FaultInjector } from './faults.js';
import { errorReply, jsonReply, readBody } from './http.js';
import type { Reply } from './http.js';
import { checkWebhookUrl } from './loopback.js';
import type { SandboxState } from './state.js';
import type { RequestStats } from './stats.js';
import { taskView } from './task-view.js';
import type { WebhookDispatcher } from './webhooks.js';

export const ADMIN_PREFIX = '/__sandbox';
const MAX_ADMIN_BODY = 1024 * 1024;

export interface AdminContext {
  state: SandboxState;
  stats: RequestStats;
  faults: FaultInjector;
  webhooks: WebhookDispatcher;
  now: () => number;
}

type AdminHandler = (ctx: AdminContext, body: Record<string, unknown>) => Reply;

const invalid = (message: string): Reply => errorReply(422, 'validation_error', message);

const ROUTES: Record<string, Record<string, AdminHandler>> = {
  '/state': {
    GET: ({ state, now }) => {
      const at = now();
      const tasks = state.tasks.map((task) => TaskSchema.parse(taskView(task, at)));
      return jsonReply(200, { balance: state.balance, tasks, webhookUrl: state.webhookUrl });
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
    POST: ({ state }, { url }) => {
      if (url !== null && typeof url !== 'string') return invalid('url must be a string, or null to clear it');
      const problem = url === null ? undefined : checkWebhookUrl(url);
      if (problem) return invalid(problem);
      state.setWebhookUrl(url);
      return jsonReply(200, { webhookUrl: state.webhookUrl });
    },
  },
  '/deliveries': {
    GET: ({ webhooks }) => jsonReply(200, { deliveries: webhooks.list() }),
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

/** Handles one `/__sandbox/...` request (the caller has checked that it comes from loopback). */
export async function handleAdmin(req: IncomingMessage, path: string, ctx: AdminContext): Promise<Reply> {
  const methods = ROUTES[path.slice(ADMIN_PREFIX.length)];
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
      } catch (error) {
        return invalid(`request body is not valid JSON: ${(error as Error).message}`);
      }
      if (typeof json !== 'object' || json === null || Array.isArray(json))
        return invalid('request body must be a JSON object');
      body = json as Record<string, unknown>;
    }
  }
  return handler(ctx, body);
}

/** A webhook body as the listener sees it: an event of docs/openapi.json (webhooks), or else what it says. */
import { MAX_JSON_DEPTH } from '../api/constants.js';
import { jsonDepthExceeds } from '../api/response-json.js';
import { WebhookEventSchema } from '../api/schemas.js';
import type { WebhookEvent } from '../api/schemas.js';
import { scalarTextAt } from '../lib/json-text.js';

/** One accepted delivery. */
export interface ReceivedEvent {
  /** The body as parsed JSON, every field kept (parsed when first read). */
  readonly body: unknown;
  /** The body exactly as received. */
  raw: string;
  /** The body read as a documented event (unknown fields dropped); undefined when its shape is not a documented one. */
  event: WebhookEvent | undefined;
  /** The first way the shape differs from the documented one (`task.platform: ...`); undefined when it does not. */
  problem: string | undefined;
  /**
   * The event name and the task id, when the body carries them, whatever else it lacks. The id is as sent: a number
   * beyond 2^53 keeps its digits (JSON.parse would round it, and name another task).
   */
  name: string | undefined;
  taskId: string | undefined;
  /** True for an event built by `--catch-up` (the envelope's `"synthesised": true`). */
  synthesised: boolean;
  /** The X-Taskctl-Simulated header of a `webhook simulate` delivery (one UUID per send); undefined otherwise. */
  simulated?: string | undefined;
}

/** What the listener keeps of an event while handling it: all but the body (a big body is held once, as text). */
export type EventMeta = Omit<ReceivedEvent, 'body' | 'raw'>;

/** A body that is not read as an event: why, in a few words (`body is not JSON`). */
export interface Unreadable {
  unreadable: string;
}

/**
 * What `raw` says about itself, or why it cannot be read: not JSON, or nested deeper than an answer of the API may be
 * (MAX_JSON_DEPTH). The parsed body is not kept.
 */
export function metaOf(raw: string): EventMeta | Unreadable {
  if (jsonDepthExceeds(raw, MAX_JSON_DEPTH))
    return { unreadable: `body is nested more than ${MAX_JSON_DEPTH} levels deep` };
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return { unreadable: 'body is not JSON' };
  }
  return readEvent(body, raw);
}

/** The body as an event of docs/openapi.json (webhooks) when it is one; else what it says of itself and what is off. */
function readEvent(body: unknown, raw: string): EventMeta {
  const record = isRecord(body) ? body : {};
  const synthesised = record.synthesised === true;
  const parsed = WebhookEventSchema.safeParse(body);
  const task = isRecord(record.task) ? record.task : {};
  const name = typeof record.event === 'string' ? record.event : undefined;
  const taskId = idAsSent(task.id, raw);
  if (parsed.success) return { event: parsed.data, problem: undefined, name, taskId, synthesised };
  const issue = parsed.error.issues[0];
  const problem = issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'unexpected shape';
  return { event: undefined, problem, name, taskId, synthesised };
}

/**
 * `task.id` as the service wrote it: a string as it is, a number as its text. A whole number up to 2^53 reads the same
 * either way; beyond it (or written as `1.5e18`) JSON.parse's double may differ from what was sent, so its text is read
 * again from the body.
 */
function idAsSent(id: unknown, raw: string): string | undefined {
  if (typeof id === 'string') return id;
  if (typeof id !== 'number') return undefined;
  if (Number.isSafeInteger(id)) return String(id);
  return scalarTextAt(raw, ['task', 'id']) ?? String(id);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `completed task 7`, or what is known of it. */
export function describeEvent(name: string | undefined, taskId: string | undefined): string {
  return `${clip(name ?? 'event')} task ${clip(taskId ?? '(no id)')}`;
}

/** Sender-chosen text in a log line: one line, bounded (the printer neutralises what remains). */
function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}

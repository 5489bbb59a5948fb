/**
 * What each dialect changes (names and descriptions: dialect-names.ts). Every body is first built in the reference
 * form and checked against the shared schemas; a dialect then reshapes the checked value, so the reference form stays
 * under contract and each variant is one small, named step here.
 */
import type { Task } from '../api/schemas.js';
import { DIALECT_NAMES, isDialectName } from './dialect-names.js';
import type { DialectName } from './dialect-names.js';
import type { Reply } from './http.js';
import { jsonReply } from './http.js';
import { rateLimitHeaders } from './rate-windows.js';
import type { RateDecision } from './rate-windows.js';
import { itemState, snapshotTask } from './timeline.js';
import type { TaskRecord } from './timeline.js';

type Json = Record<string, unknown>;
export type EnvelopeKind = 'services' | 'balance' | 'create' | 'list' | 'task';

/** Magic item prefixes that only mean something under a dialect. */
const DIALECT_MAGIC = { skip: 'skip-', archive: 'archive-' } as const;

/** Error codes that `status-400` answers with HTTP 400. */
const REFUSALS_AS_400: ReadonlySet<string> = new Set(['validation_error', 'insufficient_balance', 'not_found']);
/** Fields the webhook objects show and the API's task object does not (docs/sandbox.md#where-the-contract-is-silent); `bare-tasks` leaves them out. */
const WEBHOOK_ONLY_FIELDS = ['platform', 'completed_items', 'failed_items', 'started_at', 'failed_at', 'error_message'];

/** Names as given (`all` = every dialect), checked: an unknown name is the message of a usage error. */
export function resolveDialects(names: readonly string[]): DialectName[] | string {
  const resolved = new Set<DialectName>();
  for (const name of names) {
    if (name === 'all') DIALECT_NAMES.forEach((n) => resolved.add(n));
    else if (isDialectName(name)) resolved.add(name);
    else return `unknown sandbox dialect "${name}"; choose from: ${DIALECT_NAMES.join(', ')}, all`;
  }
  return [...resolved];
}

export class Dialects {
  private readonly on: ReadonlySet<DialectName>;
  private requestCount = 0;

  constructor(names: readonly DialectName[]) {
    this.on = new Set(names);
  }

  has(name: DialectName): boolean {
    return this.on.has(name);
  }

  /** Whether any dialect is on (the reference form needs no reshaping). */
  get active(): boolean {
    return this.on.size > 0;
  }

  createdStatus(): number {
    return this.has('created-200') ? 200 : 201;
  }

  rateLimitHeaders(decision: RateDecision): Record<string, string> {
    const headers = rateLimitHeaders(decision);
    if (this.has('reset-ms')) headers['X-RateLimit-Reset'] = String(decision.reset * 1000);
    if (this.has('reset-delta')) headers['X-RateLimit-Reset'] = String(decision.retryAfter);
    return headers;
  }

  /** A success body (already checked against its schema) in the dialect's shape. */
  envelope(body: Json, kind: EnvelopeKind): Json {
    let out = body;
    if (kind === 'balance' && this.has('balance-top-level')) {
      const { data, ...rest } = out;
      out = { ...rest, ...(data as Json) };
    }
    if (this.has('extra-fields')) {
      out = { ...out, request_id: this.nextRequestId() };
      if (isRecord(out.meta)) out.meta = { ...out.meta, generated_by: 'taskctl-sandbox', has_more: hasMore(out.meta) };
      if (kind === 'services' && Array.isArray(out.data))
        out.data = out.data.map((service) => ({ ...(service as Json), category: 'data', tags: ['sandbox'] }));
      if (kind === 'balance') {
        const extra = { reserved: 0, updated_at: new Date(0).toISOString() };
        out = isRecord(out.data) ? { ...out, data: { ...out.data, ...extra } } : { ...out, ...extra };
      }
    }
    return out;
  }

  /** A task object (already checked against TaskSchema, items in order) in the dialect's shape. */
  task(view: Task, record: TaskRecord, now: number): Json {
    const { items: viewItems, ...fields } = view;
    let out: Json = fields;
    let items: Json[] | undefined = viewItems?.map((item) => ({ ...item }));
    if (this.has('item-statuses')) this.itemStatuses(out, items, record, now);
    if (this.has('task-statuses')) taskStatuses(out, record);
    if (this.has('data-shapes')) items?.forEach((item) => reshapeData(item, record.service));
    if (this.has('no-items')) items = undefined;
    if (this.has('bare-tasks')) out = omit(out, (key) => WEBHOOK_ONLY_FIELDS.includes(key));
    if (this.has('sparse')) {
      out = omit(out, (_key, value) => value === null);
      items = items?.map((item) => omit(item, (_key, value) => value === null));
    }
    if (this.has('string-ids')) out.id = String(view.id);
    if (this.has('whole-seconds')) wholeSeconds(out);
    if (this.has('extra-fields')) {
      Object.assign(out, { priority: 'normal', labels: ['sandbox'], metadata: { source: 'api', region: 'local' } });
      items?.forEach((item) => Object.assign(item, { duration_ms: record.itemMs, attempts: 1 }));
    }
    return items ? { ...out, items } : out;
  }

  /** An error reply in the dialect's shape and status. */
  error(reply: Reply): Reply {
    if (reply.status < 400 || !this.active) return reply;
    let parsed: unknown;
    try {
      parsed = JSON.parse(reply.body);
    } catch {
      return reply;
    }
    if (!isRecord(parsed) || !isRecord(parsed.error)) return reply;
    const code = String(parsed.error.code);
    const message = String(parsed.error.message);
    const status = this.has('status-400') && REFUSALS_AS_400.has(code) ? 400 : reply.status;
    let body: Json = this.has('error-string')
      ? { success: false, error: code, message }
      : { success: false, error: { code, message } };
    if (this.has('extra-fields')) {
      body = { ...body, request_id: this.nextRequestId() };
      if (isRecord(body.error)) body.error = { ...body.error, details: { docs: 'https://example.invalid/errors' } };
      else body.details = { docs: 'https://example.invalid/errors' };
    }
    return jsonReply(status, body, reply.headers);
  }

  /** A webhook body in the dialect's shape (`extra-fields` adds fields; names and counts stay docs/openapi.json's). */
  webhook(payload: Json): Json {
    if (!this.has('extra-fields')) return payload;
    const task = isRecord(payload.task) ? { ...payload.task, metadata: { source: 'api' } } : payload.task;
    return { ...payload, delivery_id: `dlv_${this.nextRequestId()}`, task };
  }

  private nextRequestId(): string {
    this.requestCount += 1;
    return `req_${String(this.requestCount).padStart(6, '0')}`;
  }

  /** queued/running for waiting items, error for fail- items, skipped (counted nowhere) for processed skip- items. */
  private itemStatuses(out: Json, items: Json[] | undefined, record: TaskRecord, now: number): void {
    const snap = snapshotTask(record, now);
    let skipped = 0;
    record.items.forEach((target, index) => {
      if (target.startsWith(DIALECT_MAGIC.skip) && itemState(record, snap, index).status === 'completed') skipped++;
    });
    if (typeof out.completed_items === 'number') out.completed_items -= skipped;
    for (const item of items ?? []) {
      const target = String(item.target);
      if (item.status === 'pending') item.status = 'queued';
      else if (item.status === 'processing') item.status = 'running';
      else if (item.status === 'failed' && target.startsWith('fail-')) item.status = 'error';
      else if (item.status === 'completed' && target.startsWith(DIALECT_MAGIC.skip)) {
        item.status = 'skipped';
        item.data = null;
      }
    }
  }
}

/** queued/running instead of pending/processing; cancelled instead of failed; archived for archive- tasks. */
function taskStatuses(out: Json, record: TaskRecord): void {
  switch (out.status) {
    case 'pending':
      out.status = 'queued';
      break;
    case 'processing':
      out.status = 'running';
      break;
    case 'failed':
      out.status = 'cancelled';
      out.cancelled_at = out.failed_at;
      delete out.failed_at;
      break;
    case 'completed':
      if (record.items.some((item) => item.startsWith(DIALECT_MAGIC.archive))) out.status = 'archived';
      break;
  }
}

/** Result data as another JSON shape, per service: nested object, array or string. */
function reshapeData(item: Json, service: string): void {
  const data = item.data;
  if (!isRecord(data)) return;
  switch (service) {
    case 'domain_check_availability': {
      const target = String(item.target);
      const tld = target.includes('.') ? target.slice(target.lastIndexOf('.') + 1) : '';
      item.data = { available: data.available, details: { tld, premium: false } };
      break;
    }
    case 'domain_whois_history':
      item.data = data.records;
      break;
    case 'fanpage_extract_contact':
      item.data = [...(data.emails as unknown[]), ...(data.phones as unknown[])];
      break;
    case 'email_verify':
      item.data = data.reason;
      break;
  }
}

/** The task's timestamps without their fraction (truncated, as a server storing whole seconds shows them). */
function wholeSeconds(out: Json): void {
  for (const key of ['created_at', 'started_at', 'completed_at', 'failed_at', 'cancelled_at']) {
    const value = out[key];
    if (typeof value === 'string') out[key] = value.replace(/\.\d+(?=Z$)/, '');
  }
}

/** A copy without the fields `drop` picks. */
function omit(object: Json, drop: (key: string, value: unknown) => boolean): Json {
  return Object.fromEntries(Object.entries(object).filter(([key, value]) => !drop(key, value)));
}

function hasMore(meta: Json): boolean {
  return typeof meta.current_page === 'number' && typeof meta.total_pages === 'number'
    ? meta.current_page < meta.total_pages
    : false;
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

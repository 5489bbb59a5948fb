/**
 * The contract (docs/openapi.json) against an independent validator: the document is a valid OpenAPI 3.1 document,
 * the sandbox serves it at /openapi.json, and every answer the sandbox gives, on every endpoint, success and error, in
 * every dialect within the contract (docs/sandbox.md#dialects), conforms to it (with the dialects beyond it shown not to).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { DIALECT_NAMES, dialectScope } from '../../src/sandbox/dialect-names.js';
import type { DialectName } from '../../src/sandbox/dialect-names.js';
import { WEBHOOK_USER_AGENT } from '../../src/api/constants.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { REDELIVERY_DELAYS_MS } from '../../src/sandbox/webhooks.js';
import { TaskSchema } from '../../src/api/schemas.js';
import { toWebhookEvent } from '../../src/api/task-event.js';
import { sendSimulatedEvent } from '../../src/webhook/simulate.js';
import { DEDUPE_MINIMUM_MS } from '../../src/webhook/recent-keys.js';
import { FakeClock, T0 } from '../clock.js';
import { receivedWhen, admin, call, start, startReceiver } from './sandbox-calls.js';
import type { CallResult } from './sandbox-calls.js';
import {
  contract,
  deref,
  documentExamples,
  findOperation,
  metaSchemaProblems,
  responseKey,
  responseProblems,
  schemaProblems,
  webhookProblems,
} from './openapi-check.js';
import type { Json } from './openapi-check.js';

const DOCUMENTED = DIALECT_NAMES.filter((name) => dialectScope(name) === 'documented');
const BEYOND_CONTRACT = DIALECT_NAMES.filter((name) => dialectScope(name) !== 'documented');
const RATE_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
/** The one response the sandbox never gives: 403 is a valid key without permission, and its key has every one. */
const NEVER_SENT = new Set(['403']);

describe('docs/openapi.json', () => {
  // One validator for both checks: it compiles the OpenAPI 3.1 schema once. That schema is the package's own, fixed:
  // checking it against its meta-schema (ajv's validateSchema) and optimising its code only cost compile time.
  const openApi = new Validator({ validateSchema: false, code: { optimize: false } });

  it('is a valid OpenAPI 3.1 document, and its schemas valid JSON Schema 2020-12', async () => {
    const result = await openApi.validate(structuredClone(contract));
    expect(result).toEqual({ valid: true });
    // The OpenAPI schema leaves Schema Objects unchecked: ajv checks each against the 2020-12 meta-schema, then
    // compiles it in strict mode (an unknown keyword, or `required` without `type: object`, is an error).
    for (const [name, schema] of Object.entries<Json>(contract.components.schemas)) {
      expect([name, metaSchemaProblems(schema)]).toEqual([name, 'ok']);
      // Compiled as the other checks compile it (and kept for them: the tests below validate against these objects).
      expect(() => schemaProblems(schema, null, name)).not.toThrow();
    }
  });

  it('leaves the answer to an exceeded rate limit open: a 429 in any body conforms, another 4XX is the error body', () => {
    const headers = (type: string) =>
      new Headers({
        'Content-Type': type,
        'X-RateLimit-Limit': '100',
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': '1736935860',
      });
    const operations: Array<[string, string]> = [
      ['GET', '/services'],
      ['GET', '/balance'],
      ['POST', '/tasks'],
      ['GET', '/tasks'],
      ['GET', '/tasks/1'],
    ];
    const limited = { success: false, error: { code: 'rate_limited', message: 'Too many requests' } };
    for (const [method, path] of operations) {
      const text = { status: 429, headers: headers('text/plain'), body: 'Too Many Requests' };
      expect(responseProblems(method, path, text)).toEqual([]);
      expect(
        responseProblems(method, path, { status: 429, headers: headers('application/json'), body: limited }),
      ).toEqual([]);
      expect(responseProblems(method, path, { ...text, status: 400 })).not.toEqual([]);
    }
  });

  it('bounds ids and counts at 2^53 - 1, beyond which a client reading JSON numbers as doubles cannot hold them', () => {
    for (const name of ['TaskId', 'Count']) {
      const schema = contract.components.schemas[name];
      expect([name, schemaProblems(schema, Number.MAX_SAFE_INTEGER, name)]).toEqual([name, []]);
      expect([name, schemaProblems(schema, 2 ** 53 + 2, name)]).not.toEqual([name, []]);
    }
  });

  it('states the constants taskctl and its sandbox restate: webhook delays, the dedupe memory, the User-Agent', () => {
    const delays = contract.components.responses.WebhookFailed['x-redelivery-delays-seconds'] as number[];
    expect(REDELIVERY_DELAYS_MS).toEqual(delays.map((seconds) => seconds * 1000));
    // The listener remembers a delivery at least as long as the service may send it again.
    expect(DEDUPE_MINIMUM_MS).toBeGreaterThan(delays.reduce((sum, seconds) => sum + seconds, 0) * 1000);
    const userAgent = deref(contract.components.parameters.WebhookUserAgent);
    expect(schemaProblems(userAgent.schema, WEBHOOK_USER_AGENT, 'User-Agent')).toEqual([]);
  });

  it("holds a completed domain_check_availability item's data to {available: boolean}, and no other service's", () => {
    const schema = contract.components.schemas.TaskResponse;
    const example = contract.components.examples.TaskResponse.value;
    const withData = (service: string, data: unknown) => ({
      ...example,
      data: { ...example.data, service, items: [{ target: 'a.com', status: 'completed', data }] },
    });
    expect(schemaProblems(schema, withData('domain_check_availability', { available: true }), 'ok')).toEqual([]);
    for (const data of [{ available: 'yes' }, {}])
      expect(schemaProblems(schema, withData('domain_check_availability', data), 'domain')).not.toEqual([]);
    expect(schemaProblems(schema, withData('domain_whois_history', {}), 'whois')).toEqual([]);
  });

  it('names its variants by their shape, not by where an outside document showed them', () => {
    expect(JSON.stringify(contract)).not.toMatch(/quick.?start/i);
  });

  it('pins the code of a 401 to unauthorized, in both error forms', () => {
    const headers = new Headers({
      'Content-Type': 'application/json',
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': '99',
      'X-RateLimit-Reset': '1736935860',
    });
    const answer = (body: Json) => responseProblems('GET', '/balance', { status: 401, headers, body });
    expect(answer({ success: false, error: { code: 'unauthorized', message: 'Invalid or missing API key' } })).toEqual(
      [],
    );
    expect(answer({ success: false, error: 'unauthorized', message: 'Invalid or missing API key' })).toEqual([]);
    expect(answer({ success: false, error: { code: 'not_found', message: 'x' } })).not.toEqual([]);
    expect(answer({ success: false, error: 'not_found', message: 'x' })).not.toEqual([]);
  });

  it('requires the three rate-limit headers on every response of every operation', () => {
    const bare = { status: 200, headers: new Headers({ 'Content-Type': 'application/json' }) };
    const balance = { success: true, data: { balance: 1, currency: 'coins' } };
    expect(responseProblems('GET', '/balance', { ...bare, body: balance })).toEqual([
      'GET /balance → 200 header X-RateLimit-Limit: missing',
      'GET /balance → 200 header X-RateLimit-Remaining: missing',
      'GET /balance → 200 header X-RateLimit-Reset: missing',
    ]);
    for (const [template, item] of Object.entries<Json>(contract.paths))
      for (const [method, op] of Object.entries<Json>(item))
        for (const [key, response] of Object.entries<Json>(op.responses)) {
          const headers = Object.entries<Json>(deref(response).headers ?? {}).filter(([, h]) => deref(h).required);
          expect([method, template, key, headers.map(([name]) => name)]).toEqual([method, template, key, RATE_HEADERS]);
        }
  });

  it('is refused when it breaks the OpenAPI schema (the check is not vacuous)', async () => {
    const broken = structuredClone(contract);
    broken.paths['/balance'].get.responses['200'].description = 42;
    delete broken.info.title;
    const result = await openApi.validate(broken);
    expect(result.valid).toBe(false);
  });

  it('has examples that conform to their schemas, for every operation and event', () => {
    const found = documentExamples();
    const problems = found.flatMap(([where, schema, value]) => schemaProblems(schema, value, where));
    expect(problems).toEqual([]);
    // Every operation and event has an example of its success (and the named refusals have theirs).
    const illustrated = new Set(found.map(([where]) => where.split(' ').slice(0, 3).join(' ')));
    const operations = Object.entries<Json>(contract.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `paths ${path} ${method}`),
    );
    const events = Object.keys(contract.webhooks).map((name) => `webhooks ${name} post`);
    expect(illustrated).toEqual(
      new Set([...operations, ...events, 'responses Unauthorized content', 'responses ServerError content']),
    );
  });
});

/** GET /openapi.json with any Host (fetch always sends the real one). */
function getWithHost(sandbox: RunningSandbox, host: string): Promise<number> {
  const { port } = new URL(sandbox.origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/openapi.json', headers: { Host: host }, setHost: false });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET /openapi.json', () => {
  it('serves the document with this sandbox first in servers, with no key and outside the rate limit', async () => {
    const sb = await start({ rateLimit: 1 });
    expect((await call(sb, '/balance')).status).toBe(200);
    expect((await call(sb, '/balance')).status).toBe(429);
    const res = await fetch(`${sb.origin}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(RATE_HEADERS.filter((name) => res.headers.has(name))).toEqual([]);
    const served = (await res.json()) as Json;
    expect(served.servers[0].url).toBe(sb.url);
    expect({ ...served, servers: served.servers.slice(1) }).toEqual(contract);
    expect((await admin(sb, '/stats')).body.total).toBe(2);
  });

  it('answers only a loopback Host with its port, and only GET and HEAD', async () => {
    const sb = await start();
    const { port } = new URL(sb.origin);
    expect(await getWithHost(sb, `localhost:${port}`)).toBe(200);
    expect(await getWithHost(sb, 'evil.example')).toBe(403);
    expect(await getWithHost(sb, `127.0.0.1:${Number(port) + 1}`)).toBe(403);
    const post = await fetch(`${sb.origin}/openapi.json`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect((await fetch(`${sb.origin}/openapi.json`, { method: 'HEAD' })).status).toBe(200);
  });
});

interface Exercised {
  problems: string[];
  /** `GET /tasks/{id} 4XX`: the operation and the response key each answer matched. */
  covered: Set<string>;
}

/**
 * The documented dialects that change no refusal and no header: in each, the answers to the refusals and faults of
 * `exercise` are the reference dialect's byte for byte (seen by hand: the status, headers and body of each), so their
 * runs check the rest of it ('answers'). A dialect not named here runs them all.
 */
const REFUSALS_AS_REFERENCE: ReadonlySet<DialectName> = new Set<DialectName>([
  'balance-top-level',
  'created-200',
  'whole-seconds',
  'item-statuses',
  'task-statuses',
  'bare-tasks',
]);

type Check = (method: string, path: string, init?: Parameters<typeof call>[2]) => Promise<CallResult>;

/**
 * Every endpoint of a sandbox in `dialects`, success and error cases, each answer checked against the document
 * ('all'); the same without the refusals and faults ('answers'); or only the creates and the reads of tasks and task
 * lists as they run and end ('tasks').
 */
async function exercise(dialects: DialectName[], scope: 'all' | 'answers' | 'tasks' = 'all'): Promise<Exercised> {
  const receiver = await startReceiver();
  const clock = new FakeClock();
  // The limit: the keyed requests to its end below (24 of tasks, 11 of the refusals, the limit's last), so that the
  // next draws a real 429 (the limit spent, not a fault) without a drain of its own.
  const rateLimit = scope === 'all' ? 36 : 25;
  const sb = await start({ clock, itemMs: 100, rateLimit, balance: 60, webhookUrl: receiver.url, dialects });
  const problems: string[] = [];
  const covered = new Set<string>();
  const check: Check = async (method, path, init = {}) => {
    const res = await call(sb, path, { ...init, method });
    const bare = path.split('?')[0] ?? path;
    problems.push(...responseProblems(method, bare, res));
    for (const name of RATE_HEADERS)
      if (!res.headers.has(name)) problems.push(`${method} ${path} → ${res.status}: no ${name}`);
    const found = findOperation(method, bare);
    if (found) covered.add(`${method} ${found.template} ${String(responseKey(found.op.responses, res.status))}`);
    return res;
  };
  const create = (service: string, items: string[]) => check('POST', '/tasks', { body: { service, items } });
  const fault = (method: string, path: string, status: number) =>
    admin(sb, '/faults', { method, path, kind: 'status', status });

  await check('GET', '/services');
  await check('GET', '/balance');
  await check('GET', '/balance', { auth: 'bearer' });
  await create('domain_check_availability', ['a.com', 'fail-b.com', 'skip-c.com']);
  await create('fanpage_extract_contact', ['x', 'taskfail-y', 'z']);
  await create('domain_whois_history', ['archive-d.com', 'e.com']);
  await create('email_verify', ['me@example.com']);
  // The document's other create body, one target: a task like any other.
  const oneTarget = { platform: 'domain', service_name: 'domain_check_availability', target: 'one.example' };
  problems.push(...schemaProblems(contract.components.schemas.CreateTaskRequest, oneTarget, 'one-target create body'));
  const created = await check('POST', '/tasks', { body: oneTarget });
  if (created.status >= 300) problems.push(`the one-target create body was refused: ${created.status}`);
  for (const query of ['', '?per_page=2', '?page=2&per_page=2', '?page=9']) await check('GET', `/tasks${query}`);
  for (const advance of [0, 60, 10_000]) {
    clock.advance(advance);
    for (const id of [1, 2, 3, 4]) await check('GET', `/tasks/${id}`);
  }
  if (scope === 'tasks') return { problems, covered };
  if (scope === 'all') await refuse(check, fault);
  // The limit's last request (every keyed request above was answered: a fault's answer counts nothing), then the
  // refusal of the spent limit itself.
  const last = await check('GET', '/balance');
  const left = last.headers.get('X-RateLimit-Remaining');
  if (last.status !== 200 || left !== '0') problems.push(`not the limit's last request: ${last.status}, ${left} left`);
  const refused = await check('GET', '/balance');
  if (refused.status !== 429) problems.push(`the request past the limit was answered ${refused.status}`);

  const events = await receivedWhen(receiver, (received) => received.length >= 8);
  for (const event of events) problems.push(...webhookProblems(event.headers, event.body));
  covered.add(`webhooks ${[...new Set(events.map((e) => String(e.body.event)))].sort().join(' ')}`);
  return { problems, covered };
}

/** The refusals the document names, and the faults of each status on every endpoint (`exercise`'s 'all'). */
async function refuse(check: Check, fault: (method: string, path: string, status: number) => Promise<unknown>) {
  const create = (service: string, items: string[]) => check('POST', '/tasks', { body: { service, items } });
  // Refusals the document names: the key, an unknown task or service, invalid input, the balance.
  const endpoints: Array<[string, string]> = [
    ['GET', '/services'],
    ['GET', '/balance'],
    ['POST', '/tasks'],
    ['GET', '/tasks'],
    ['GET', '/tasks/1'],
  ];
  for (const [method, path] of endpoints) await check(method, path, { auth: 'none' });
  await check('GET', '/tasks/1', { auth: 'bearer', key: 'sk_wrong' });
  await check('GET', '/tasks/999');
  await check('GET', '/tasks/abc');
  await create('no_such_service', ['a.com']);
  await create('domain_check_availability', []);
  await check('POST', '/tasks', { body: '{"service":' });
  await check('POST', '/tasks', { body: 'x', headers: { 'Content-Type': 'text/plain' } });
  await create('domain_whois_history', Array<string>(20).fill('a.com'));
  await check('GET', '/tasks?per_page=500');
  await check('GET', '/tasks?page=0');
  // Requests the document does not describe are refused like any other refusal.
  await check('DELETE', '/balance');
  await check('GET', '/nowhere');
  // The service failing (5XX), another refusal (4XX) and the refusal of a spent rate limit (429), on every endpoint.
  for (const [method, path] of endpoints)
    for (const status of [503, 400, 429]) {
      await fault(method, path, status);
      await check(method, path, method === 'POST' ? { body: { service: 'email_verify', items: ['a@b.co'] } } : {});
    }
}

/** What `exercise` must reach: every operation's every response but NEVER_SENT, and every event. */
function everyResponse(): Set<string> {
  const all = new Set<string>();
  for (const [template, item] of Object.entries<Json>(contract.paths))
    for (const [method, op] of Object.entries<Json>(item))
      for (const key of Object.keys(op.responses))
        if (!NEVER_SENT.has(key)) all.add(`${method.toUpperCase()} ${template} ${key}`);
  all.add(`webhooks ${Object.keys(contract.webhooks).sort().join(' ')}`);
  return all;
}

describe('the sandbox against docs/openapi.json', () => {
  it('answers every endpoint, success and error, and sends every event, as the document says', async () => {
    const { problems, covered } = await exercise([]);
    expect(problems).toEqual([]);
    expect(covered).toEqual(everyResponse());
  });

  it.each(DOCUMENTED)('conforms in the dialect %s', async (dialect) => {
    expect((await exercise([dialect], REFUSALS_AS_REFERENCE.has(dialect) ? 'answers' : 'all')).problems).toEqual([]);
  });

  it('conforms with every dialect within the contract at once', async () => {
    expect((await exercise(DOCUMENTED)).problems).toEqual([]);
  });

  // Each of these dialects departs in the tasks it answers (string ids, other item data, no items, null fields left
  // out): the creates and the task reads show it, without the refusals, faults and webhooks of a whole exercise.
  it.each(BEYOND_CONTRACT)('departs from the document in %s, a dialect beyond the contract', async (dialect) => {
    const { problems } = await exercise([dialect], 'tasks');
    expect(problems.filter((problem) => problem.includes(' body/'))).not.toEqual([]);
  });
});

describe("taskctl's own webhook events against docs/openapi.json", () => {
  it('sends, with webhook simulate, every event toWebhookEvent builds (watch -o ndjson, catch-up) as the document says', async () => {
    const receiver = await startReceiver();
    const example = contract.components.examples.TaskResponse.value.data;
    // 2025-01-15T09:31:00Z: a minute after the document's example task was created.
    const now = T0 - (2 * 60 + 29) * 60_000;
    const tasks: Json[] = [
      { ...example, status: 'processing', completed_at: null, items: undefined },
      { ...example, status: 'running', completed_at: null, started_at: '2025-01-15T09:30:01Z', completed_items: 1 },
      example,
      { ...example, id: '42', platform: 'domain', completed_items: 2, failed_items: 0 },
      { ...example, status: 'failed', completed_at: null, failed_at: '2025-01-15T09:30:09Z', error_message: 'x' },
      { ...example, status: 'failed', completed_at: null, items: undefined, platform: ['odd'] },
      { ...example, status: 'cancelled', completed_at: null, service: 'fanpage_extract_contact' },
    ];
    const sent: string[] = [];
    for (const task of tasks) {
      const event = toWebhookEvent(TaskSchema.parse(task), now);
      if (event === undefined) throw new Error(`no event for ${JSON.stringify(task)}`);
      sent.push(event.event);
      await sendSimulatedEvent({ event, to: receiver.url, apiKey: 'sk_simulated' });
    }
    const received = await receivedWhen(receiver, (all) => all.length >= tasks.length);
    expect(received.flatMap((event) => webhookProblems(event.headers, event.body))).toEqual([]);
    expect([...new Set(sent)].sort()).toEqual(Object.keys(contract.webhooks).sort());
  });
});

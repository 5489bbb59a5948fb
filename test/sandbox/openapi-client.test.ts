/**
 * The client's requests against the contract (docs/openapi.json): every endpoint src/api/client.ts calls, with each
 * way of sending the key, is captured by a loopback server and checked (operation, path and query parameters,
 * credentials, Content-Type, body) by the independent validator. The server answers with the document's own
 * examples, so the client is also shown to read every documented form of an answer, and of a refusal.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/client.js';
import { ExitCode } from '../../src/errors.js';
import { FakeClock } from '../clock.js';
import { BASE_PATH, contract, deref, findOperation, requestProblems, responseKey } from './openapi-check.js';
import type { Json, WireRequest } from './openapi-check.js';

const KEY = 'sk_contract_0123456789';
/** The exit code each documented error code means (docs/behaviour.md#exit-codes). */
const EXIT_BY_CODE: Record<string, number> = {
  unauthorized: ExitCode.auth,
  not_found: ExitCode.notFound,
  validation_error: ExitCode.input,
  insufficient_balance: ExitCode.balance,
  internal_error: ExitCode.unavailable,
};

interface Recorder {
  requests: WireRequest[];
  baseUrl: string;
  /** From now on, answer `operationId` with this status and example (a resend gets it too); else its success examples in turn. */
  answer: (operationId: string, status: number, example: string) => void;
  close: () => Promise<void>;
}

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

/** The success examples of an operation, in the document's order, with the status that answers them. */
function successExamples(op: Json): Array<{ status: number; value: unknown }> {
  const key = Object.keys(op.responses).find((k) => k.startsWith('2')) ?? '200';
  const status = key === '2XX' ? 201 : Number(key);
  const examples = deref(op.responses[key]).content['application/json'].examples;
  return Object.values<Json>(examples).map((example) => ({ status, value: deref(example).value }));
}

/** A loopback server that records each request and answers it from the document's examples. */
async function recorder(): Promise<Recorder> {
  const requests: WireRequest[] = [];
  const served = new Map<string, number>();
  const planned = new Map<string, { status: number; value: unknown }>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = req.url ?? '/';
      requests.push({ method: req.method ?? '', url, headers: req.headers, body: Buffer.concat(chunks).toString() });
      const path = new URL(url, 'http://x').pathname.slice(BASE_PATH.length);
      const found = findOperation(req.method ?? '', path);
      const id = String(found?.op.operationId);
      const turn = served.get(id) ?? 0;
      served.set(id, turn + 1);
      const examples = found ? successExamples(found.op) : [];
      const reply = planned.get(id) ?? examples[turn % Math.max(1, examples.length)];
      res.writeHead(reply?.status ?? 404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(reply?.value ?? { success: false, error: { code: 'not_found', message: url } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  closing.push(close);
  const { port } = server.address() as AddressInfo;
  const answer = (operationId: string, status: number, example: string) => {
    planned.set(operationId, { status, value: contract.components.examples[example].value });
  };
  return { requests, baseUrl: `http://127.0.0.1:${port}${BASE_PATH}`, answer, close };
}

function client(baseUrl: string, authScheme: 'x-api-key' | 'bearer'): ApiClient {
  const api = createApiClient({
    baseUrl,
    apiKey: KEY,
    authScheme,
    userAgent: 'taskctl/contract',
    env: {},
    clock: new FakeClock(Date.now()),
  });
  closing.push(() => api.close());
  return api;
}

/** Every operation of the document, as `METHOD template`. */
const OPERATIONS = Object.entries<Json>(contract.paths).flatMap(([template, item]) =>
  Object.keys(item).map((method) => `${method.toUpperCase()} ${template}`),
);

describe("the client's requests against docs/openapi.json", () => {
  it.each(['x-api-key', 'bearer'] as const)(
    'sends every endpoint as the document says (key as %s), and reads every documented answer',
    async (scheme) => {
      const server = await recorder();
      const api = client(server.baseUrl, scheme);
      const services = await api.listServices();
      const balances = [await api.getBalance(), await api.getBalance()];
      const created = await api.createTask({ service: 'domain_check_availability', items: ['example.com', 'a.net'] });
      const pages = [await api.listTasks(), await api.listTasks({ page: 2, perPage: 100 })];
      const task = await api.getTask(42);

      expect(server.requests.flatMap(requestProblems)).toEqual([]);
      const sent = server.requests.map((req) => {
        const path = new URL(req.url, 'http://x').pathname.slice(BASE_PATH.length);
        const found = findOperation(req.method, path);
        return `${req.method} ${String(found?.template)}`;
      });
      expect(new Set(sent)).toEqual(new Set(OPERATIONS));
      // What the examples say, as the client read them (both forms of the balance come out the same).
      expect(services.map((s) => s.service)).toContain('domain_check_availability');
      expect(balances).toEqual([
        { balance: 9975, currency: 'coins' },
        { balance: 9975, currency: 'coins' },
      ]);
      expect([created.id, created.status, pages[0]?.tasks.length, task.items?.length]).toEqual([42, 'pending', 2, 2]);
    },
  );

  it('reads every documented refusal, either form of the error body, as the error it means', async () => {
    const server = await recorder();
    const api = client(server.baseUrl, 'x-api-key');
    const refusals: Array<[string, number, string, () => Promise<unknown>]> = [
      ['getBalance', 401, 'Unauthorized', () => api.getBalance()],
      ['getBalance', 401, 'UnauthorizedStringError', () => api.getBalance()],
      ['getTask', 404, 'TaskNotFound', () => api.getTask(999)],
      ['createTask', 402, 'InsufficientBalance', () => api.createTask({ service: 'x', items: ['a.com'] })],
      ['createTask', 422, 'ValidationError', () => api.createTask({ service: 'x', items: ['a.com'] })],
      ['createTask', 404, 'UnknownService', () => api.createTask({ service: 'x', items: ['a.com'] })],
      ['listServices', 500, 'InternalError', () => api.listServices()],
    ];
    for (const [operationId, status, example, run] of refusals) {
      server.answer(operationId, status, example);
      const value = contract.components.examples[example].value;
      const code = String(typeof value.error === 'string' ? value.error : value.error.code);
      const failed = await run().then(
        () => 'answered',
        (error: unknown) => (error as { exitCode?: number }).exitCode,
      );
      expect([example, failed]).toEqual([example, EXIT_BY_CODE[code]]);
    }
    // Each refusal's status is one the document lists for its operation.
    for (const [operationId, status] of refusals) {
      const op = Object.values<Json>(contract.paths)
        .flatMap((item) => Object.values<Json>(item))
        .find((candidate) => candidate.operationId === operationId);
      expect([operationId, responseKey(op.responses, status)]).not.toEqual([operationId, undefined]);
    }
    expect(server.requests.flatMap(requestProblems)).toEqual([]);
  });

  it('refuses requests the document does not allow (the check is not vacuous)', () => {
    const key = { 'x-api-key': KEY };
    const json = { ...key, 'content-type': 'application/json' };
    const cases: Array<[WireRequest, string]> = [
      [{ method: 'GET', url: '/api/v1/balance', headers: {}, body: '' }, 'no credentials'],
      [{ method: 'GET', url: '/api/v1/balance', headers: { authorization: 'Basic eDp5' }, body: '' }, 'no credentials'],
      [{ method: 'GET', url: '/api/v1/tasks?per_page=500', headers: key, body: '' }, 'query per_page: must be <= 100'],
      [{ method: 'GET', url: '/api/v1/tasks?page=1.5', headers: key, body: '' }, 'query page: must be integer'],
      [{ method: 'GET', url: '/api/v1/tasks?sort=asc', headers: key, body: '' }, 'sort is not in the document'],
      [{ method: 'GET', url: '/api/v1/tasks/7x', headers: key, body: '' }, 'path id: must be integer'],
      [{ method: 'DELETE', url: '/api/v1/tasks/7', headers: key, body: '' }, 'no such operation'],
      [{ method: 'POST', url: '/api/v1/tasks', headers: json, body: '' }, 'required body is missing'],
      [{ method: 'POST', url: '/api/v1/tasks', headers: key, body: '{}' }, 'Content-Type undefined'],
      [{ method: 'POST', url: '/api/v1/tasks', headers: json, body: '{"service":"s"}' }, "required property 'items'"],
      [
        { method: 'POST', url: '/api/v1/tasks', headers: json, body: '{"service":"s","items":"a.com"}' },
        'must be array',
      ],
      [{ method: 'GET', url: '/api/v1/balance', headers: json, body: '{}' }, 'a body, where the document has none'],
    ];
    for (const [req, expected] of cases) {
      expect([req.url, requestProblems(req).join('; ')]).toEqual([req.url, expect.stringContaining(expected)]);
    }
  });
});

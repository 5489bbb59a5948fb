/**
 * The commands' requests against the contract (docs/openapi.json), as the service receives them: each command that
 * talks to the API runs in process against the sandbox in every dialect the document allows whose answers it follows
 * (ANSWERS_FOLLOWED_UNCHANGED), through a loopback proxy that records each request (method, path and query, headers,
 * body) before forwarding it. The independent validator then checks every recorded request: chunked creates, the
 * waits' and watch's rounds, list's pages, show --job, retry, resume and `api` send only what the document describes,
 * whatever answers the dialect gave back.
 * (openapi-client.test.ts checks the client's five calls one by one; this file, what the commands make of them.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { DIALECT_NAMES, dialectScope } from '../../src/sandbox/dialect-names.js';
import type { DialectName } from '../../src/sandbox/dialect-names.js';
import { FakeClock } from '../clock.js';
import { runTaskctl } from '../unit/commands/run-in-process.js';
import type { RunResult } from '../unit/commands/run-in-process.js';
import { requestProblems } from './openapi-check.js';
import type { WireRequest } from './openapi-check.js';

const DOCUMENTED = DIALECT_NAMES.filter((name) => dialectScope(name) === 'documented');
/**
 * The dialects that change no answer a later request follows here, so that every command sends in them what it sends
 * in the reference dialect: the commands' requests are fixed by their arguments up to the first answer they read.
 * error-string and status-400 change only error answers, and this file's one error (show of a task that does not
 * exist) ends its command; reset-delta and reset-ms only the rate-limit headers, which a sandbox without a limit does
 * not send; per-page-clamp only a per_page over 100, which no command asks for. Each still runs in its dialect the
 * commands of one request each, the error among them, its requests checked against the document; the flow of
 * creates, waits, lists, shows of a job, retry and resume runs in the reference dialect and in every other dialect,
 * whose answers (the balance, a created task, a task's or an item's status, timestamps, fields) those commands
 * read and follow with their next requests.
 */
const ANSWERS_FOLLOWED_UNCHANGED: ReadonlySet<string> = new Set<DialectName>([
  'error-string',
  'status-400',
  'reset-delta',
  'reset-ms',
  'per-page-clamp',
]);
/** Headers a proxy answers for itself (the body is sent whole, with its own length). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/** A loopback proxy in front of `upstream` (an origin) that records each request as it arrived. */
async function recordingProxy(upstream: string): Promise<{ origin: string; requests: WireRequest[] }> {
  const requests: WireRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => name !== 'host' && !HOP_BY_HOP.has(name)),
      );
      const answer = await request(`${upstream}${req.url ?? ''}`, {
        method: req.method as 'GET',
        headers: headers as Record<string, string>,
        body: body === '' ? null : body,
      });
      const answered = Buffer.from(await answer.body.arrayBuffer());
      for (const [name, value] of Object.entries(answer.headers))
        if (!HOP_BY_HOP.has(name) && value !== undefined) res.setHeader(name, value);
      res.writeHead(answer.statusCode).end(answered);
    })().catch((error: unknown) => {
      res.writeHead(599).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closing.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.on('connection', (socket) => closing.unshift(async () => void socket.destroy()));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const show = (argv: string[], result: RunResult) =>
  `taskctl ${argv.join(' ')}: exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;

describe.each(['reference', ...DOCUMENTED])('the commands’ requests in the %s dialect', (dialect) => {
  // Up to fifteen commands in process: seconds on a loaded machine.
  it('conform to the document', { timeout: 60_000 }, async () => {
    const clock = new FakeClock();
    const sandbox = await startSandbox({
      port: 0,
      clock,
      itemMs: 1000,
      rateLimit: 0,
      dialects: dialect === 'reference' ? [] : [dialect],
    });
    closing.push(() => sandbox.close());
    const proxy = await recordingProxy(sandbox.origin);
    const baseUrl = `${proxy.origin}${new URL(sandbox.url).pathname}`;
    const home = await mkdtemp(join(tmpdir(), 'contract-'));
    closing.push(() => rm(home, { recursive: true, force: true }));
    const job = join(home, 'job.jsonl');
    const again = join(home, 'again.jsonl');
    const env = { TASKCTL_BASE_URL: baseUrl, TASKCTL_API_KEY: sandbox.apiKey };
    const run = async (argv: string[], expected: readonly number[] = [0]) => {
      const result = await runTaskctl(argv, { clock, env, home });
      expect(expected, show(argv, result)).toContain(result.code);
      return result;
    };

    await run(['services']);
    await run(['balance']);
    await run(['api', '/balance']);
    const flow = !ANSWERS_FOLLOWED_UNCHANGED.has(dialect);
    if (flow) {
      const items = ['a.com', 'b.com', 'fail-c.com', 'd.com', 'e.com'];
      await run(['create', 'domain_check_availability', ...items, '--chunk-size', '2', '--journal', job, '-y']);
      await run(['wait', '--job', job, '--timeout', '10m'], [0, 11]);
      await run(['watch', '1', '2', '3', '--timeout', '10m'], [0, 11]);
      await run(['list', '--all', '--since', '1h', '--status', 'completed']);
      await run(['list', '--limit', '1', '-o', 'json']);
      await run(['show', '1', '-o', 'json']);
      await run(['show', '--job', job, '-o', 'ndjson'], [0, 11]);
      await run(['retry', '--job', job, '--journal', again, '-y'], [0, 3]);
      await run(['resume', again, '--yes'], [0, 3]);
      await run(['create', 'domain_check_availability', 'f.com', '--reuse-window', '1h', '-y', '--wait']);
    }
    await run(['show', '999999'], [5]);

    const methods = new Set(proxy.requests.map((req) => `${req.method} ${new URL(req.url, 'http://x').pathname}`));
    const flowMethods = ['GET /api/v1/tasks', 'GET /api/v1/tasks/1', 'POST /api/v1/tasks'];
    expect([...methods].sort()).toEqual(
      expect.arrayContaining([
        'GET /api/v1/balance',
        'GET /api/v1/services',
        'GET /api/v1/tasks/999999',
        ...(flow ? flowMethods : []),
      ]),
    );
    expect(proxy.requests.flatMap(requestProblems)).toEqual([]);
  });
});

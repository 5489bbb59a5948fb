import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookEvent } from '../../../src/api/schemas.js';
import { UnavailableError, UsageError } from '../../../src/errors.js';
import { startWebhookListener } from '../../../src/webhook/listener.js';
import { sendSimulatedEvent } from '../../../src/webhook/simulate.js';
import { signatureMatches } from '../../../src/webhook/signature.js';

const KEY = 'sk_sim_secret_0042';
const event: WebhookEvent = {
  event: 'processing',
  timestamp: '2025-01-01T12:00:00.000Z',
  task: {
    id: 3,
    service: 'domain_check_availability',
    platform: 'domain',
    status: 'processing',
    total_items: 1,
    completed_items: 0,
    failed_items: 0,
    cost: 1,
    created_at: '2025-01-01T11:59:00.000Z',
    started_at: '2025-01-01T12:00:00.000Z',
  },
};

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function capture(status = 200): Promise<{
  url: string;
  requests: Array<{ method: string | undefined; headers: IncomingHttpHeaders; body: string }>;
}> {
  const requests: Array<{ method: string | undefined; headers: IncomingHttpHeaders; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      requests.push({ method: req.method, headers: req.headers, body });
      res.writeHead(status).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, requests };
}

describe('sendSimulatedEvent', () => {
  it("sends the service's exact headers and the event as the body", async () => {
    const receiver = await capture(202);
    const result = await sendSimulatedEvent({ event, to: receiver.url, apiKey: KEY });
    expect(result.status).toBe(202);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    const [request] = receiver.requests;
    expect(request?.method).toBe('POST');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['x-webhook-signature']).toBe(KEY);
    expect(request?.headers['user-agent']).toBe('TaskService-Webhook/1.0');
    expect(JSON.parse(request!.body)).toEqual(event);
  });

  it('is accepted by the listener with the same key, refused with another', async () => {
    const events: WebhookEvent[] = [];
    const listener = await startWebhookListener({
      port: 0,
      apiKey: KEY,
      onEvent: (e) => {
        if (e.event) events.push(e.event);
      },
    });
    try {
      expect((await sendSimulatedEvent({ event, to: listener.url, apiKey: KEY })).status).toBe(200);
      expect((await sendSimulatedEvent({ event, to: listener.url, apiKey: 'sk_other_key' })).status).toBe(401);
    } finally {
      await listener.close();
    }
    expect(events).toEqual([event]);
  });

  it('refuses plain HTTP off loopback and other schemes (exit 2)', async () => {
    await expect(sendSimulatedEvent({ event, to: 'http://example.com/hook', apiKey: KEY })).rejects.toBeInstanceOf(
      UsageError,
    );
    await expect(sendSimulatedEvent({ event, to: 'ftp://127.0.0.1/hook', apiKey: KEY })).rejects.toBeInstanceOf(
      UsageError,
    );
    await expect(sendSimulatedEvent({ event, to: 'not a url', apiKey: KEY })).rejects.toBeInstanceOf(UsageError);
  });

  it('reports an unreachable receiver as unavailable, without the key', async () => {
    const receiver = await capture();
    const url = receiver.url;
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const error = await sendSimulatedEvent({ event, to: url, apiKey: KEY }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as Error).message).not.toContain(KEY);
    expect((error as Error).message).toBe(`could not deliver the event: nothing is listening at ${url}`);
  });

  it('a port fetch refuses (1, 25, 6000, ...): says why, and names --to', async () => {
    // Nothing is sent: fetch refuses the port before connecting (its list of blocked ports, as browsers have).
    const error = await sendSimulatedEvent({ event, to: 'http://127.0.0.1:1/', apiKey: KEY }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as Error).message).toBe(
      'could not deliver the event to http://127.0.0.1:1/: port 1 is one that fetch refuses to connect to (a port of another protocol)',
    );
    expect((error as UnavailableError).hint).toBe(
      'Pass --to with a URL on another port (your receiver listening there).',
    );
  });

  it('gives up after timeoutMs', async () => {
    const server = createServer(() => undefined); // never answers
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const error = await sendSimulatedEvent({ event, to: url, apiKey: KEY, timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as Error).message).toMatch(/no answer within 0\.2s$/); // not "0s": lib/duration.ts writes it
    server.closeAllConnections();
  });
});

describe('sendSimulatedEvent: an answer without end', () => {
  it('is read to 1 MiB, then dropped: the status counts, the rest is never held', async () => {
    let written = 0;
    const server = createServer((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const more = (): void => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
        if (!res.destroyed) res.once('drain', more);
      };
      res.on('error', () => undefined);
      more();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const result = await sendSimulatedEvent({ event, to: url, apiKey: KEY, timeoutMs: 3_000 });
    expect(result.status).toBe(200);
    expect(result.durationMs).toBeLessThan(2_000);
    expect(written).toBeLessThan(16 * 1024 * 1024); // 1 MiB read, and what the sockets buffered
    server.closeAllConnections();
  });
});

describe('signatureMatches', () => {
  it('matches only the exact key', () => {
    expect(signatureMatches(KEY, KEY)).toBe(true);
    expect(signatureMatches(`${KEY} `, KEY)).toBe(false);
    expect(signatureMatches('', KEY)).toBe(false);
    expect(signatureMatches(KEY.slice(0, 4), KEY)).toBe(false);
  });
});

/**
 * A fault-injecting HTTP proxy for one run of the exactly-once campaign: the run's requests reach the
 * sandbox only through it (its own undici Agent dials the proxy, so the base URL, and with it the account of the local
 * ledger, stays the sandbox's), and the proxy sees what the service created for that run's POST /tasks.
 *
 * Faults on the run's first POST /tasks:
 * - `reset-before`: the connection is closed before anything is forwarded (nothing is created);
 * - `reset-after`: forwarded, the service's answer read (the task recorded), then the connection closed;
 * - `502`: answered with a gateway error page, not forwarded (nothing is created);
 * - `delay`: held for `delayMs` (longer than the client's request timeout), then forwarded (the task lands late);
 * - `none`: forwarded as is.
 *
 * `dateAheadMs`: every answer's `Date` header moved that far ahead of the sandbox's clock, which stamps the tasks (a
 * gateway whose clock runs ahead of the application's: docs/behaviour.md#the-window).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Agent, request } from 'undici';

export const PROXY_FAULTS = ['none', 'reset-before', 'reset-after', '502', 'delay'] as const;
export type ProxyFault = (typeof PROXY_FAULTS)[number];

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);
const GATEWAY_PAGE = '<html><head><title>502 Bad Gateway</title></head><body>502 Bad Gateway</body></html>';

export class FaultProxy {
  /** Ids of the tasks the service created for this run's POSTs (what the proxy saw forwarded and answered). */
  readonly created: number[] = [];
  /** When (real epoch ms) each of those was answered by the service. */
  readonly createdAt: number[] = [];
  /** POSTs still held or in flight upstream (a delayed POST lands after the run may have ended). */
  private readonly pending = new Set<Promise<void>>();
  private faultUsed = false;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private port = 0;
  readonly agent: Agent;

  constructor(
    private readonly upstream: string,
    readonly fault: ProxyFault,
    private readonly delayMs = 0,
    private readonly dateAheadMs = 0,
  ) {
    // Every connection of the run goes to this proxy, whatever the URL says.
    this.agent = new Agent({
      connect: (_options, callback) => {
        const socket = connect({ host: '127.0.0.1', port: this.port });
        socket.once('connect', () => callback(null, socket));
        socket.once('error', (error) => callback(error, null));
      },
    });
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      void this.handle(req, res);
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Waits for held and forwarded POSTs to land (a delayed one lands after its delay, whatever the client did). */
  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  async close(): Promise<void> {
    await this.settle();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
    await this.agent.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const isCreate = req.method === 'POST' && (req.url ?? '').split('?')[0]?.endsWith('/tasks') === true;
    const fault = isCreate && !this.faultUsed ? this.fault : 'none';
    if (isCreate) this.faultUsed = true;
    if (fault === 'reset-before') {
      req.socket.destroy();
      return;
    }
    if (fault === '502') {
      res.writeHead(502, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(GATEWAY_PAGE) });
      res.end(GATEWAY_PAGE);
      return;
    }
    const work = (async () => {
      if (fault === 'delay') await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (!HOP_BY_HOP.has(name) && typeof value === 'string') headers[name] = value;
      }
      const answer = await request(`${this.upstream}${req.url ?? '/'}`, {
        method: req.method as 'GET' | 'POST',
        headers,
        body: body.length > 0 ? body : null,
      });
      const text = await answer.body.text();
      if (isCreate && answer.statusCode >= 200 && answer.statusCode < 300) {
        const id = (JSON.parse(text) as { data?: { id?: unknown } }).data?.id;
        if (typeof id === 'number' || typeof id === 'string') {
          this.created.push(Number(id));
          this.createdAt.push(Date.now());
        }
      }
      if (fault === 'reset-after' || res.destroyed || req.socket.destroyed) {
        req.socket.destroy();
        return;
      }
      const out: Record<string, string> = { 'content-length': String(Buffer.byteLength(text)) };
      for (const [name, value] of Object.entries(answer.headers)) {
        if (!HOP_BY_HOP.has(name) && typeof value === 'string') out[name] = value;
      }
      if (this.dateAheadMs !== 0 && out.date !== undefined)
        out.date = new Date(Date.parse(out.date) + this.dateAheadMs).toUTCString();
      res.writeHead(answer.statusCode, out);
      res.end(text);
    })().catch(() => {
      req.socket.destroy();
    });
    if (isCreate) {
      this.pending.add(work);
      void work.finally(() => this.pending.delete(work));
    }
    await work;
  }
}

/** Starts the sandbox: its parts wired together (parts.ts), and the node:http server with its request pipeline. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { neutralise } from '../lib/sanitize.js';
import { listenOn } from '../net/listen.js';
import { API_PREFIX } from './api-routes.js';
import { errorReply, JSON_TYPE } from './http.js';
import { buildParts } from './parts.js';
import { handleRequest } from './requests.js';
import type { RunningSandbox, SandboxOptions } from './types.js';

function originOf(host: string, port: number): string {
  // A wildcard listen address is reachable through loopback; show that, since clients cannot dial 0.0.0.0 everywhere.
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/** A fault of the sandbox in one log line: the error's kind and the first line of its message, never its stack. */
function shortReason(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const first = text.split('\n', 1)[0] ?? '';
  return neutralise(first.length > 200 ? `${first.slice(0, 199)}…` : first);
}

export async function startSandboxServer(options: SandboxOptions): Promise<RunningSandbox> {
  const parts = buildParts(options);
  const { opts, state, store, timers, webhooks, live } = parts;
  const { log } = opts;
  const server = createServer((req, res) => {
    handleRequest(parts, req, res).catch((error: unknown) => {
      log(`sandbox: internal error on ${req.method} ${neutralise(req.url ?? '')}: ${shortReason(error)}`);
      if (res.headersSent) return void req.socket.destroy();
      const reply = errorReply(500, 'internal_error', 'Internal server error');
      res.writeHead(reply.status, {
        'Content-Type': JSON_TYPE,
        'Content-Length': String(Buffer.byteLength(reply.body)),
      });
      res.end(reply.body);
    });
  });
  try {
    await store?.attach(state);
    await listenOn(server, opts.port, opts.host);
  } catch (error) {
    store?.abandon();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  parts.serverPort = port;
  // The dashboard hears of every change: the journal's hook stays first (store.attach set it, above).
  const previous = state.onChange;
  state.onChange = () => {
    previous();
    live.notify('state');
  };
  const origin = originOf(opts.host, port);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      timers.close();
      webhooks.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await store?.close();
    })();
    return closing;
  };
  return { url: `${origin}${API_PREFIX}`, origin, dashboard: `${origin}/`, apiKey: state.apiKey, close };
}

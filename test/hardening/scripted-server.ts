/**
 * Shared parts of the hardening matrix (test/README.md): a scripted HTTP(S) server that plays a misbehaving service or
 * proxy, a spawn helper for shell pipelines, and small JSON builders. E2E cases need `npm run build` first.
 */
import { execFileSync } from 'node:child_process';
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, isolatedHome, runProcess, type CliResult } from '../e2e/spawn-cli.js';
import { FakeClock } from '../clock.js';
import { runTaskctl } from '../unit/commands/run-in-process.js';
import type { Clock } from '../../src/lib/time.js';

/** A key that is easy to find in output: every secrets case greps for it. */
export const KEY = 'sk_hardening_S3CRET_9f3c2a71';

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string, index: number) => void | Promise<void>;

export interface ScriptedServer {
  /** `http://127.0.0.1:PORT` (or https). */
  origin: string;
  port: number;
  /** Every request received, in order. */
  requests: Recorded[];
  /** TLS handshakes that failed (https only). */
  tlsErrors: number;
  close: () => Promise<void>;
}

/** A loopback server answering with `handler`; the request body is read first. */
export async function scriptedServer(
  handler: Handler,
  options: { tls?: { key: string; cert: string }; host?: string } = {},
): Promise<ScriptedServer> {
  const requests: Recorded[] = [];
  const sockets = new Set<Socket>();
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const index = requests.length;
      requests.push({ method: req.method ?? '?', url: req.url ?? '?', headers: req.headers, body });
      Promise.resolve(handler(req, res, body, index)).catch((error: unknown) => {
        res.destroy(error as Error);
      });
    });
  };
  const server: Server = options.tls ? createHttpsServer(options.tls, onRequest) : createHttpServer(onRequest);
  const state = { tlsErrors: 0 };
  server.on('tlsClientError', () => state.tlsErrors++);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Also count the raw TLS sockets, whose 'connection' event is 'secureConnection' on https.
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `${options.tls ? 'https' : 'http'}://${host}:${port}`,
    port,
    requests,
    get tlsErrors() {
      return state.tlsErrors;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Writes a JSON answer with the given status and extra headers. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export const BALANCE_OK = { success: true, data: { balance: 100, currency: 'coins' } };

export const SERVICE = {
  service: 'domain_check_availability',
  display_name: 'Domain availability',
  description: 'Checks whether a domain is free',
  pricing: 1,
  currency: 'coins',
};

export { task } from './task-json.js';

/** Environment for the CLI against a scripted server: isolated config, the test key, that base URL. */
export function cliEnv(origin: string, home: { env: Record<string, string> }): Record<string, string> {
  return { ...home.env, TASKCTL_BASE_URL: origin, TASKCTL_API_KEY: KEY };
}

/**
 * `runCli`'s twin in this process: `main()` with memory IO and virtual time (from now), for rows whose subject is the
 * command's output or wire behaviour, not the process. `env` must carry the config dirs (`cliEnv`, `world.env`).
 */
export async function runInProcess(
  args: string[],
  options: { env: Record<string, string | undefined>; stdin?: string; clock?: Clock },
): Promise<CliResult> {
  const home = mkdtempSync(join(tmpdir(), 'taskctl-inproc-'));
  try {
    const result = await runTaskctl(args, {
      env: options.env,
      home,
      stdin: options.stdin,
      clock: options.clock ?? new FakeClock(Date.now()),
    });
    return { ...result, signal: null };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** Runs a shell command line (for pipes from endless producers); `taskctl` in it is the built bin. */
export async function runShell(script: string, env: Record<string, string>, timeoutMs = 15_000): Promise<CliResult> {
  return runProcess('/bin/sh', ['-c', script], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', TASKCTL: `${process.execPath} ${BIN}`, ...env },
    timeoutMs,
    label: `sh -c ${script}`,
  });
}

/** A self-signed certificate for 127.0.0.1/localhost made with `openssl`, or undefined when it is not installed. */
export function selfSignedCertificate():
  { key: string; cert: string; certFile: string; cleanup: () => void } | undefined {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-tls-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      // A P-256 key: made in milliseconds, where RSA-2048 took a quarter of a second of CPU or more.
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return {
    key: readFileSync(keyFile, 'utf8'),
    cert: readFileSync(certFile, 'utf8'),
    certFile,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export { isolatedHome };
export type { CliResult };

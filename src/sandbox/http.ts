/** Small HTTP helpers: replies as values, JSON error bodies, and a capped body reader. */
import type { IncomingMessage } from 'node:http';
import { ErrorResponseSchema } from '../api/schemas.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
/** Request bodies above this are refused with 413 (the reader stops buffering at the cap). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** A response as a value, so faults can truncate it or drop it after the handler ran. */
export interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
  /** Default: JSON. */
  contentType?: string;
}

export function jsonReply(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return headers ? { status, body: JSON.stringify(body), headers } : { status, body: JSON.stringify(body) };
}

/** `{success:false, error:{code, message}}`, checked against the shared schema (its output is normalised, so the input is sent). */
export function errorReply(status: number, code: string, message: string, headers?: Record<string, string>): Reply {
  const body = { success: false as const, error: { code, message } };
  ErrorResponseSchema.parse(body);
  return jsonReply(status, body, headers);
}

export function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const [mediaType = ''] = value.split(';');
  const type = mediaType.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : `${bytes} bytes`;
}

export type BodyResult = { ok: true; text: string } | { ok: false; reply: Reply };

/** How long an over-large upload may keep streaming (discarded) after the 413, before the socket is cut. */
const LINGER_MS = 5_000;

/**
 * After a 413, discard the rest of the upload instead of closing at once: closing a socket with unread data sends a
 * TCP reset, which can destroy the 413 before the client reads it. Uploads that go on too long are cut.
 */
function discardRest(req: IncomingMessage): void {
  if (req.complete) return;
  const timer = setTimeout(() => req.socket.destroy(), LINGER_MS);
  timer.unref();
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
  req.resume();
}

/** Reads the whole body up to `cap` bytes; beyond that it stops buffering and answers 413. */
export function readBody(req: IncomingMessage, cap = MAX_BODY_BYTES): Promise<BodyResult> {
  const tooLarge = (): BodyResult => {
    discardRest(req);
    return {
      ok: false,
      reply: errorReply(
        413,
        'validation_error',
        `request body is larger than ${formatBytes(cap)}; send fewer or shorter items per task`,
      ),
    };
  };
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > cap) return Promise.resolve(tooLarge());
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: BodyResult) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > cap) {
        chunks.length = 0;
        finish(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => finish({ ok: true, text: Buffer.concat(chunks).toString('utf8') }));
    req.once('error', () =>
      finish({ ok: false, reply: errorReply(400, 'validation_error', 'request body could not be read') }),
    );
  });
}

/** Splits `/path?query` without the cost of `new URL` on the hot path. */
export function splitUrl(url: string | undefined): { path: string; query: string } {
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  return q < 0 ? { path: raw, query: '' } : { path: raw.slice(0, q), query: raw.slice(q + 1) };
}

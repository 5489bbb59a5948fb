/**
 * An http:// base URL pointed at a port that speaks TLS. A TLS server either answers the plain request with TLS bytes
 * (an alert, 0x15, or a handshake record, 0x16, where HTTP/ was expected: undici's parser error), or, as Node
 * and OpenSSL do, closes the connection without a byte: then one TLS handshake to the same port tells.
 */
import { connect } from 'node:tls';

/** TLS record types a server's first byte may be: alert, handshake. */
const TLS_FIRST_BYTES: ReadonlySet<number> = new Set([0x15, 0x16]);

/** How long the handshake that asks whether the port speaks TLS may take (loopback or not, it is one round trip). */
const PROBE_MS = 2000;

/**
 * True when `error` (a failed plain-http attempt to `origin`: request.ts asks only for an http:// origin, before it
 * loads this module) came from a port that speaks TLS.
 */
export async function answeredInTls(origin: string, error: unknown, code: string): Promise<boolean> {
  const { name, data, socket } = error as { name?: unknown; data?: unknown; socket?: { bytesRead?: unknown } };
  // undici's HTTPParserError, its code (HPE_INVALID_CONSTANT) not always set: the bytes where HTTP/ was expected.
  if (name === 'HTTPParserError') {
    const first = typeof data === 'string' ? data.charCodeAt(0) : Buffer.isBuffer(data) ? data[0] : undefined;
    return first !== undefined && TLS_FIRST_BYTES.has(first);
  }
  if (code !== 'UND_ERR_SOCKET' || socket?.bytesRead !== 0) return false;
  return speaksTls(new URL(origin));
}

/** One handshake, its certificate not judged (only whether TLS answers): true when it completes. */
function speaksTls(url: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const socket = connect({ host, port: Number(url.port || 80), rejectUnauthorized: false, timeout: PROBE_MS });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.once('secureConnect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

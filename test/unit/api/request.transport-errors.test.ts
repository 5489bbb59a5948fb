import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../hardening/scripted-server.js';
import { runTaskctl } from '../commands/run-in-process.js';
import { judgeFailure, type JudgeContext } from '../../../src/api/request.js';
import { CliError, ExitCode } from '../../../src/errors.js';
import { createRedactor } from '../../../src/lib/redact.js';
import { T0 } from '../../clock.js';

const OPENSSL = (reason: string) =>
  `80FCC80B6B7F0000:error:0A000410:SSL routines:ssl3_read_bytes:${reason}:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1605:SSL alert number 40\n`;

function context(loopback: boolean): JudgeContext {
  const origin = loopback ? 'https://127.0.0.1:8443' : 'https://api.example.com';
  return {
    method: 'GET',
    endpoint: 'GET /balance',
    origin,
    baseUrl: `${origin}/api/v1`,
    loopback,
    timeoutMs: 35_000,
    scrub: createRedactor(['sk_secret']),
    now: () => T0,
    random: () => 0.5,
  };
}

function failWith(code: string, message: string, loopback = false): CliError {
  const error = Object.assign(new Error(message), { code });
  const verdict = judgeFailure(context(loopback), { kind: 'failure', error, code, status: undefined, sentAtMs: 0 }, 1);
  if (verdict.ok) throw new Error('expected a failure');
  const failure = verdict.fail();
  if (!(failure instanceof CliError)) throw new Error('expected a CliError');
  return failure;
}

describe('TLS failures as people read them', () => {
  it('a handshake refused by the server: one line, the reason without OpenSSL internals, no CA hint', () => {
    const error = failWith('ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', OPENSSL('sslv3 alert handshake failure'));
    expect(error.exitCode).toBe(ExitCode.unavailable);
    expect(error.message).toBe(
      'reading the balance: TLS connection to https://api.example.com failed: the server refused the handshake',
    );
    expect(error.hint).not.toMatch(/NODE_EXTRA_CA_CERTS/);
  });

  it('https to a plain-HTTP port of a remote host: says so, without the OpenSSL text or a CA hint', () => {
    const error = failWith('ERR_SSL_WRONG_VERSION_NUMBER', OPENSSL('wrong version number'));
    expect(error.message).toBe('reading the balance: https://api.example.com answered plain HTTP, not TLS');
    expect(error.hint).toMatch(/port in --base-url/);
  });

  it('https to a plain-HTTP loopback server: one line naming the http:// URL to use', () => {
    const error = failWith('ERR_SSL_WRONG_VERSION_NUMBER', OPENSSL('wrong version number'), true);
    expect(error.message).toBe('reading the balance: the server answered plain HTTP: use http://127.0.0.1:8443/api/v1');
    expect(error.hint).toBeUndefined();
  });

  it.each([
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate', 'its TLS certificate is self-signed'],
    [
      'SELF_SIGNED_CERT_IN_CHAIN',
      'self-signed certificate in certificate chain',
      'its TLS certificate chain is self-signed',
    ],
    [
      'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
      'unable to get local issuer certificate',
      'its TLS certificate is not trusted here',
    ],
    ['CERT_NOT_YET_VALID', 'certificate is not yet valid', 'its TLS certificate is not valid yet'],
  ])(
    'a refused certificate (%s) is said in words, without its code, and gets the private-CA hint',
    (code, openssl, words) => {
      const error = failWith(code, openssl);
      expect(error.message).toBe(`reading the balance: TLS connection to https://api.example.com failed: ${words}`);
      expect(error.hint).toMatch(/NODE_EXTRA_CA_CERTS/);
    },
  );

  it('any other handshake failure: words, never the OpenSSL code or text', () => {
    const error = failWith('ERR_SSL_UNSUPPORTED_PROTOCOL', OPENSSL('unsupported protocol'));
    expect(error.message).toBe(
      'reading the balance: TLS connection to https://api.example.com failed: the handshake failed',
    );
    expect(error.hint).toMatch(/--base-url/);
  });

  it('a certificate for another host: check the host, not the CA', () => {
    const error = failWith('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames");
    expect(error.message).toBe(
      "reading the balance: TLS connection to https://api.example.com failed: its TLS certificate is another host's",
    );
    expect(error.hint).toMatch(/host in --base-url/);
    expect(error.hint).not.toMatch(/NODE_EXTRA_CA_CERTS/);
  });

  it('an unknown transport failure with a multi-line message is shown on one line', () => {
    const error = failWith('EWEIRD', 'first line\n  second line');
    expect(error.message).toBe(
      'reading the balance: the request to https://api.example.com failed (first line second line)',
    );
  });
});

/** An http:// base URL pointed at a port that speaks TLS: said so, with the https:// URL to use, sent once. */
describe('http:// to a TLS port', () => {
  /** `balance` at http:// on that port: exit 8, naming the https:// URL to use. */
  const expectUseHttps = async (port: number) => {
    const result = await runTaskctl(['balance'], {
      env: { TASKCTL_BASE_URL: `http://127.0.0.1:${port}/api/v1`, TASKCTL_API_KEY: 'sk_test' },
    });
    expect(result.code).toBe(ExitCode.unavailable);
    expect(result.stderr).toBe(
      `error: reading the balance: the server answered in TLS: use https://127.0.0.1:${port}/api/v1\n`,
    );
  };

  it('a TLS server that closes on the plain request (as Node and OpenSSL do): use https://', async (context) => {
    const tls = selfSignedCertificate();
    if (!tls) return context.skip('openssl is not installed');
    const server = createHttpsServer({ key: tls.key, cert: tls.cert }, (_, res) => res.end('{}'));
    let handshakes = 0;
    server.on('tlsClientError', () => handshakes++);
    try {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      await expectUseHttps(port);
      expect(handshakes).toBe(1); // the request went once: a TLS port does not turn into a plain one
    } finally {
      server.close();
      tls.cleanup();
    }
  });

  it.each([
    ['an alert', [0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x46]],
    ['a handshake record', [0x16, 0x03, 0x03, 0x00, 0x02, 0x02, 0x00]],
  ])('a server that answers with %s: use https://', async (_, bytes) => {
    const server = createNetServer((socket) => {
      socket.once('data', () => socket.end(Buffer.from(bytes)));
    });
    try {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      await expectUseHttps(port);
    } finally {
      server.close();
    }
  });
});

/** An answer HTTP itself cannot read (undici's parser refused it): plain words, the malformed-answer advice, exit 8. */
describe('answers that are not readable HTTP', () => {
  const MALFORMED_HINT =
    /^Check that --base-url points at the task service \(it should end in \/api\/v1\), and any proxy in between\.$/;

  it.each([
    ['UND_ERR_HEADERS_OVERFLOW', 'Headers Overflow Error', "the service's answer headers are too large (over 16 KiB)"],
    ['HPE_INVALID_HEADER_TOKEN', 'Invalid header value char', "the service's answer headers hold invalid characters"],
    ['HPE_INVALID_STATUS', 'Invalid status code', "the service's answer is not valid HTTP"],
    ['HPE_INVALID_CONSTANT', 'Expected HTTP/', "the service's answer is not valid HTTP"],
    ['HPE_INVALID_CHUNK_SIZE', 'Invalid character in chunk size', "the service's answer is not valid HTTP"],
    ['HPE_UNEXPECTED_CONTENT_LENGTH', 'Duplicate Content-Length', "the service's answer is not valid HTTP"],
    ['HPE_SOMETHING_NEW', 'Some parser text', "the service's answer is not valid HTTP"],
    ['UND_ERR_RES_EXCEEDED_MAX_SIZE', 'Response content exceeded max size', "the service's answer is too large"],
  ])("%s: words, never undici's text; the malformed-answer advice", (code, text, words) => {
    const error = failWith(code, text);
    expect(error.exitCode).toBe(ExitCode.unavailable);
    expect(error.message).toBe(`reading the balance: ${words}`);
    expect(error.message).not.toContain(text);
    expect(error.hint).toMatch(MALFORMED_HINT);
  });

  it('a loopback server sending a 200 KB header: `show 1` says so in words, exit 8, sent once', async () => {
    let requests = 0;
    const server = createNetServer((socket) => {
      socket.on('error', () => undefined); // the client drops the connection mid-header: a reset here
      socket.once('data', () => {
        requests++;
        const junk = 'x'.repeat(200 * 1024);
        socket.end(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-junk: ${junk}\r\ncontent-length: 2\r\n\r\n{}`,
        );
      });
    });
    try {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const result = await runTaskctl(['show', '1'], {
        env: { TASKCTL_BASE_URL: `http://127.0.0.1:${port}/api/v1`, TASKCTL_API_KEY: 'sk_test' },
      });
      expect(result.code).toBe(ExitCode.unavailable);
      expect(result.stderr).toBe(
        "error: reading task 1: the service's answer headers are too large (over 16 KiB)\n" +
          'Check that --base-url points at the task service (it should end in /api/v1), and any proxy in between.\n',
      );
      expect(requests).toBe(1);
    } finally {
      server.close();
    }
  });
  // undici's parser error for the first two carries no code: its words were printed as they were, with the network's
  // advice. RFC 9110 §15.2 lets a server send an interim 1xx before its answer; undici closes the connection at a 100
  // it did not ask for (it never sends "Expect: 100-continue"), calling it a 'bad response'.
  it.each([
    [
      'an interim 100 Continue before its 200',
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}',
      'the service sent an interim HTTP 1xx answer, or an answer no request asked for',
    ],
    [
      'an escape character in a header',
      'HTTP/1.1 200 OK\r\nContent-Type: application/\u001bjson\r\nContent-Length: 2\r\n\r\n{}',
      "the service's answer headers hold invalid characters",
    ],
    ['no HTTP at all', 'SSH-2.0-OpenSSH_9.6\r\n', "the service's answer is not valid HTTP"],
  ])(
    'a loopback server sending %s: said in words, the malformed-answer advice, exit 8, sent once',
    async (_, answer, words) => {
      let requests = 0;
      const server = createNetServer((socket) => {
        socket.on('error', () => undefined);
        socket.once('data', () => {
          requests++;
          socket.end(answer);
        });
      });
      try {
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        const { port } = server.address() as AddressInfo;
        const result = await runTaskctl(['balance'], {
          env: { TASKCTL_BASE_URL: `http://127.0.0.1:${port}/api/v1`, TASKCTL_API_KEY: 'sk_test' },
        });
        expect(result.stderr).toBe(
          `error: reading the balance: ${words}\n` +
            'Check that --base-url points at the task service (it should end in /api/v1), and any proxy in between.\n',
        );
        expect(result.code).toBe(ExitCode.unavailable);
        expect(requests).toBe(1);
      } finally {
        server.close();
      }
    },
  );
});

describe('a request timeout in words: what the server sent', () => {
  function timedOut(code: string, status: number | undefined): string {
    const error = Object.assign(new Error('timed out'), { code });
    const exchange = { kind: 'failure' as const, error, code, status, sentAtMs: 0 };
    const verdict = judgeFailure(context(false), exchange, 4);
    if (verdict.ok) throw new Error('expected a failure');
    return verdict.fail().message;
  }

  it('nothing came (a stopped server, headers never sent): it did not answer, not "the complete answer"', () => {
    for (const code of ['UND_ERR_HEADERS_TIMEOUT', 'TASKCTL_REQUEST_TIMEOUT']) {
      expect(timedOut(code, undefined)).toBe('reading the balance: https://api.example.com did not answer within 35s');
    }
  });

  it('the headers came, the body did not end: it did not finish its answer', () => {
    for (const code of ['UND_ERR_BODY_TIMEOUT', 'TASKCTL_REQUEST_TIMEOUT']) {
      expect(timedOut(code, 200)).toBe(
        'reading the balance: https://api.example.com did not finish its answer within 35s',
      );
    }
  });
});

describe('connection refused on loopback: the advice fits the port of the base URL', () => {
  const refused = (origin: string) => {
    const error = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const ctx = { ...context(true), origin, baseUrl: `${origin}/api/v1` };
    const verdict = judgeFailure(
      ctx,
      { kind: 'failure', error, code: 'ECONNREFUSED', status: undefined, sentAtMs: 0 },
      4,
    );
    if (verdict.ok) throw new Error('expected a failure');
    const failure = verdict.fail();
    if (!(failure instanceof CliError)) throw new Error('expected a CliError');
    return failure;
  };

  it.each([
    [
      'http://127.0.0.1:8787',
      'Nothing is listening there: start the sandbox with `taskctl sandbox`, or check --base-url.',
    ],
    [
      'http://127.0.0.1:44555',
      'Nothing is listening on port 44555: start the sandbox there with `taskctl sandbox --port 44555`, or check --base-url.',
    ],
    [
      'http://127.0.0.1:1',
      'Nothing is listening on port 1: check --base-url (the sandbox listens on port 8787 unless told otherwise).',
    ],
    [
      'http://localhost',
      'Nothing is listening on port 80: check --base-url (the sandbox listens on port 8787 unless told otherwise).',
    ],
  ])('%s', (origin, hint) => {
    expect(refused(origin).hint).toBe(hint);
  });
});

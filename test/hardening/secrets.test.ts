/**
 * Hardening matrix, secrets rows (test/README.md, S1–S13): the API key never reaches stdout or stderr, even when a
 * server echoes it; config files stay private; plain HTTP never leaves the machine; server text is printed inert;
 * webhook signatures are compared in constant time and never printed.
 */
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { BIN, startWorld, waitFor, type CliResult, type E2EWorld } from '../e2e/spawn-cli.js';
import {
  cliEnv,
  isolatedHome,
  json,
  KEY,
  runInProcess,
  scriptedServer,
  SERVICE,
  task,
  type ScriptedServer,
} from './scripted-server.js';

import { signatureMatches } from '../../src/webhook/signature.js';
import { startWebhookListener } from '../../src/webhook/listener.js';

/** Neither the key nor any long piece of it appears. */
function expectNoKey(result: { stdout: string; stderr: string }, label = ''): void {
  const text = result.stdout + result.stderr;
  expect(text, `${label}: the key leaked`).not.toContain(KEY);
  // A 12-character slice would still identify the key (masking shows only the last 4).
  expect(text, `${label}: part of the key leaked`).not.toContain(KEY.slice(3, 15));
}

const ESC = '\u001b';
const BEL = '\u0007';
const RLO = '\u202e';

describe('S1 a --verbose run of every command never prints the key', () => {
  let world: E2EWorld;
  let receiver: ScriptedServer;
  let id: string;
  let slowId: string;
  beforeAll(async () => {
    world = await startWorld({ itemMs: 100, apiKey: KEY });
    receiver = await scriptedServer((_req, res) => json(res, 200, { ok: true }));
    id = (await world.inProcess(['create', 'domain_check_availability', 'a.com', '-q'])).stdout.trim();
    // 30 slow items at 100 ms × 10 each: still processing long after this file is done.
    const slow = Array.from({ length: 30 }, (_, i) => `slow-${i}.com`);
    slowId = (await world.inProcess(['create', 'domain_check_availability', ...slow, '-q'])).stdout.trim();
    await world.inProcess(['--profile', 'bearer', 'config', 'set', 'auth-scheme', 'bearer']);
  });
  afterAll(async () => {
    await receiver.close();
    await world.close();
  });

  // The spawned rows (X-API-Key, tsv) run the built bin, so nothing the process prints outside the command's output (a
  // warning, a crash) escapes the check: the bin's start-up and exit are the same for every command, so three of them
  // carry it, chosen for their paths (the start-up without commander; the spending pipeline with its journal; a timeout
  // ending on a timer). Every command runs in this process with both schemes: X-API-Key (tsv) and, through a
  // profile, Authorization: Bearer (json). Each spawned run cost ~0.4 s of CPU (11 at once: 2-5 s each on two cores).
  const commands: Array<[string, () => string[], number, 'spawned'?]> = [
    ['services', () => ['services'], 0],
    ['balance', () => ['balance'], 0, 'spawned'],
    ['list', () => ['list', '--all'], 0],
    ['show', () => ['show', id], 0],
    ['create', () => ['create', 'domain_check_availability', 'b.com'], 0, 'spawned'],
    ['create --dry-run', () => ['create', 'domain_check_availability', 'c.com', '--dry-run'], 0],
    ['wait', () => ['wait', id, '--interval', '100ms'], 0],
    // 3 s: a spawned process on a loaded machine got no first answer within 1 s (exit 8, "no answer before the deadline").
    [
      'watch with a timeout',
      () => ['watch', slowId, '--interval', '100ms', '--timeout', '3s'],
      ExitCode.timeout,
      'spawned',
    ],
    ['auth status', () => ['auth', 'status'], 0],
    ['config list', () => ['config', 'list'], 0],
    ['webhook simulate', () => ['webhook', 'simulate', id, '--to', `${receiver.origin}/hook`], 0],
  ];
  it.concurrent.each(commands)('%s', async (label, args, code, spawned) => {
    const profiles = ['default', 'bearer'];
    const results = await Promise.all(
      profiles.map((profile) => {
        const env =
          profile === 'bearer' ? { TASKCTL_PROFILE: 'bearer', TASKCTL_OUTPUT: 'json' } : { TASKCTL_OUTPUT: 'tsv' };
        const argv = ['--verbose', ...args()];
        return profile === 'default' && spawned ? world.run(argv, { env }) : world.inProcess(argv, { env });
      }),
    );
    results.forEach((result, i) => {
      const profile = profiles[i]!;
      expect(result.code, `${label} (${profile}): ${result.stderr}`).toBe(code);
      // Redaction markers prove the key was there to hide (traced request headers, or the masked key of config list).
      expect(result.stdout + result.stderr).toMatch(/\[REDACTED\]|\*\*\*\*/);
      expectNoKey(result, `${label} (${profile})`);
    });
  });

  it('webhook simulate really sent the key (so S1 proves redaction, not absence)', () => {
    expect(receiver.requests.some((r) => r.headers['x-webhook-signature'] === KEY)).toBe(true);
  });

  it('S13 webhook simulate to a receiver that redirects elsewhere: not followed, the other host never sees the signature', async () => {
    const other = await scriptedServer((_req, res) => json(res, 200, { ok: true }), { host: '127.0.0.2' });
    const redirecting = await scriptedServer((req, res) => {
      res.writeHead(307, { Location: `${other.origin}${req.url ?? '/'}`, 'Content-Length': '0' });
      res.end();
    });
    try {
      const result = await world.inProcess(['webhook', 'simulate', id, '--to', `${redirecting.origin}/hook`]);
      expect(result.code, result.stderr).toBe(ExitCode.unavailable);
      expect(result.stderr).toMatch(/HTTP 307/);
      expect(redirecting.requests).toHaveLength(1);
      expect(other.requests).toHaveLength(0);
      expectNoKey(result, 'simulate redirect');
    } finally {
      await redirecting.close();
      await other.close();
    }
  });

  it('auth login --with-key (key on stdin), verbose: saved, never printed', async () => {
    const home = isolatedHome();
    try {
      const env = { ...home.env, TASKCTL_API_KEY: '', TASKCTL_BASE_URL: '' };
      const result = await runInProcess(
        ['--verbose', 'auth', 'login', '--with-key', '--base-url', world.sandbox.origin],
        {
          env,
          stdin: `${KEY}\n`,
        },
      );
      expect(result.code, result.stderr).toBe(0);
      expectNoKey(result, 'auth login');
      expect(readFileSync(join(home.dir, 'config', 'config.json'), 'utf8')).toContain(KEY);
    } finally {
      home.cleanup();
    }
  });

  it('webhook listen, verbose: a wrong and a right signature arrive; neither is printed', async () => {
    const child = spawn(process.execPath, [BIN, '--verbose', 'webhook', 'listen', '--port', '0'], {
      env: { PATH: process.env.PATH ?? '', ...world.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      await waitFor(() => /listening for webhooks on (http:\/\/\S+)/.test(stderr), {
        describe: () => `the listener did not start: ${stderr}`,
      });
      const url = /listening for webhooks on (http:\/\/\S+?);?\s/.exec(stderr)![1]!;
      const event = {
        event: 'completed',
        timestamp: '2025-01-15T12:00:02Z',
        task: { ...task(Number(id)), platform: 'domain', completed_items: 1, failed_items: 0 },
      };
      const post = (signature: string) =>
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-webhook-signature': signature },
          body: JSON.stringify(event),
        });
      const wrongGuess = 'sk_wrong_guess_4242_zzzz';
      expect((await post(wrongGuess)).status).toBe(401);
      expect((await post(KEY)).status).toBe(200);
      await waitFor(() => stderr.includes('401 signature does not match'), { describe: () => `stderr ${stderr}` });
      child.kill('SIGINT');
      await closed;
      expect(stderr).toMatch(/401 signature does not match/);
      expect(stdout + stderr).not.toContain(wrongGuess);
      expectNoKey({ stdout, stderr }, 'webhook listen');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

describe('S2–S4 a server that echoes the key is scrubbed', () => {
  let server: ScriptedServer;
  let home: ReturnType<typeof isolatedHome>;
  interface Answer {
    status: number;
    body: unknown;
    headers?: Record<string, string>;
  }
  let answer: (method: string, url: string) => Answer;
  beforeAll(async () => {
    home = isolatedHome();
    server = await scriptedServer((req, res) => {
      const a = answer(req.method ?? 'GET', req.url ?? '/');
      json(res, a.status, a.body, a.headers);
    });
  });
  afterAll(async () => {
    await server.close();
    home.cleanup();
  });
  // In this process: the subject is what the command prints of a server's answer (S1 covers the spawned bin).
  const run = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
    runInProcess(args, { env: { ...cliEnv(server.origin, home), ...env } });
  const failure = (code: string) => ({
    success: false,
    error: { code, message: `Invalid API key "${KEY}" (key=${KEY})` },
  });

  it.each([
    ['401 unauthorized', 401, failure('unauthorized'), ['balance'], ExitCode.auth],
    [
      '401, the string-error variant',
      401,
      { success: false, error: 'unauthorized', message: `bad key ${KEY}` },
      ['balance'],
      ExitCode.auth,
    ],
    [
      '422 validation_error on create',
      422,
      failure('validation_error'),
      ['create', 'domain_check_availability', 'a.com'],
      ExitCode.input,
    ],
    ['500 internal_error, retried', 500, failure('internal_error'), ['balance'], ExitCode.unavailable],
    ['429 rate_limited', 429, failure('rate_limited'), ['balance'], ExitCode.rateLimited],
  ])(
    'S2 %s: the message is shown with the key redacted (plain and --verbose)',
    async (_name, status, body, args, code) => {
      // Retry-After: 0 keeps the retried rows (429, 500) fast.
      answer = (method, url): Answer =>
        method === 'GET' && url === '/api/v1/services'
          ? { status: 200, body: { success: true, data: [SERVICE] } }
          : { status, body, headers: { 'Retry-After': '0' } };
      for (const verbose of [[], ['--verbose']]) {
        const result = await run([...verbose, ...args]);
        expect(result.code, result.stderr).toBe(code);
        expect(result.stderr).toMatch(/\[REDACTED\]/);
        expectNoKey(result, `${status}${verbose.join('')}`);
      }
    },
  );

  it('S3 a redirect whose Location carries the key: the message names it redacted', async () => {
    answer = () => ({ status: 302, body: '', headers: { Location: `https://elsewhere.example/api?key=${KEY}` } });
    const result = await run(['--verbose', 'balance']);
    expect(result.code, result.stderr).toBe(ExitCode.unavailable);
    expect(result.stderr).toMatch(/redirect to https:\/\/elsewhere\.example\/api\?key=\[REDACTED\]/);
    expectNoKey(result, 'redirect');
  });

  it('S4 the key echoed inside data (a service description, a task item) is redacted on stdout in every format', async () => {
    answer = (_method, url) =>
      url.startsWith('/api/v1/services')
        ? { status: 200, body: { success: true, data: [{ ...SERVICE, description: `your key is ${KEY}` }] } }
        : {
            status: 200,
            body: {
              success: true,
              data: { ...task(5), items: [{ target: KEY, status: 'completed', data: { note: KEY } }] },
            },
          };
    for (const output of ['table', 'tsv', 'csv', 'json', 'ndjson']) {
      for (const args of [['services'], ['show', '5']]) {
        const result = await run(['-o', output, ...args]);
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toMatch(/REDACTED/);
        expectNoKey(result, `${args[0]} -o ${output}`);
      }
    }
  });

  it('S5 a key with a stray trailing newline or CR (a pasted CI secret) is sent trimmed and still scrubbed from errors', async () => {
    answer = () => ({ status: 401, body: failure('unauthorized') });
    for (const suffix of ['\n', '\r', ' ']) {
      const result = await run(['balance'], { TASKCTL_API_KEY: `${KEY}${suffix}` });
      expect(result.code, result.stderr).toBe(ExitCode.auth);
      expectNoKey(result, JSON.stringify(suffix));
    }
    expect(server.requests.at(-1)?.headers['x-api-key']).toBe(KEY);
  });

  // KNOWN BUG outside this matrix's files (see test/README.md): the printer redacts with the key exactly as configured
  // (src/context.ts `addSecret(settings.apiKey.value)`), so with a stray newline or space around TASKCTL_API_KEY a key
  // echoed inside *data* reaches stdout. Errors and traces are scrubbed (S5). Remove `.fails` once context.ts also
  // registers the trimmed key.
  it('S5b the same key echoed inside data on stdout is redacted too', async () => {
    answer = () => ({ status: 200, body: { success: true, data: [{ ...SERVICE, description: `key=${KEY}.` }] } });
    for (const suffix of ['\n', ' ']) {
      const result = await run(['services', '-o', 'tsv'], { TASKCTL_API_KEY: `${KEY}${suffix}` });
      expect(result.code, result.stderr).toBe(0);
      expectNoKey(result, JSON.stringify(suffix));
    }
  });

  it('S5c the key typed where an argument goes (a task id, a status, a line of `wait -`) is scrubbed from the refusal', async () => {
    const before = server.requests.length;
    for (const [args, stdin] of [
      [['show', KEY]],
      [['list', '--status', KEY]],
      [['wait', '-'], `${KEY}\n`],
      // Refused by commander while it parses: a choice, a number, a command.
      [['list', '-o', KEY]],
      [['list', '--limit', KEY]],
      [[KEY]],
    ] as Array<[string[], string?]>) {
      const result = await runInProcess(args, {
        env: cliEnv(server.origin, home),
        ...(stdin === undefined ? {} : { stdin }),
      });
      expect(result.code, result.stderr).toBe(ExitCode.usage);
      expect(result.stderr).toContain('[REDACTED]');
      expectNoKey(result, args.join(' '));
    }
    expect(server.requests.length).toBe(before);
  });

  it('S6 a key with a line break inside: exit 4 saying so, the key not printed, nothing sent', async () => {
    const before = server.requests.length;
    const result = await run(['balance'], { TASKCTL_API_KEY: `${KEY.slice(0, 10)}\n${KEY.slice(10)}` });
    expect(result.code, result.stderr).toBe(ExitCode.auth);
    expect(result.stderr).toMatch(/the API key contains a line break/);
    expect(result.stdout + result.stderr).not.toContain(KEY.slice(10));
    expect(server.requests.length).toBe(before);
  });
});

describe('S7 config file and directory modes', () => {
  it('a new config is 0600 in a 0700 directory; loose ones are tightened with a warning', async () => {
    const world = await startWorld({ itemMs: 0, apiKey: KEY });
    try {
      const dir = join(world.home.dir, 'config');
      const file = join(dir, 'config.json');
      expect((await world.inProcess(['config', 'set', 'output', 'tsv'])).code).toBe(0);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      chmodSync(dir, 0o755);
      chmodSync(file, 0o644);
      const result = await world.inProcess(['balance']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/config directory .* was accessible to others \(755\); tightened to 700/);
      expect(result.stderr).toMatch(/config file .* was readable by others \(644\); tightened to 600/);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      await world.close();
    }
  });
});

describe('S8 plain HTTP to a host that is not loopback is refused before anything is sent', () => {
  const home = isolatedHome();
  afterAll(() => home.cleanup());
  it.each([
    'http://example.com',
    'http://api.example.com/api/v1',
    'http://10.0.0.1:8787',
    'http://127.0.0.1.nip.io',
    'http://localhost.example.com',
    'http://[::ffff:8.8.8.8]',
    'http://127.0.0.1@evil.example',
  ])('%s: exit 2 with the reason', async (url) => {
    const result = await runInProcess(['balance'], {
      env: { ...home.env, TASKCTL_BASE_URL: url, TASKCTL_API_KEY: KEY },
    });
    expect(result.code, result.stderr).toBe(ExitCode.usage);
    expect(result.stderr).toMatch(/plain HTTP would send the API key in clear text|must not contain a user name/);
    expectNoKey(result, url);
    const login = await runInProcess(['auth', 'login', '--with-key', '--base-url', url], {
      env: { ...home.env, TASKCTL_API_KEY: '' },
      stdin: `${KEY}\n`,
    });
    expect(login.code, login.stderr).toBe(ExitCode.usage);
    expectNoKey(login, `login ${url}`);
  });
});

describe('S9 server text with terminal escape sequences is printed inert', () => {
  let server: ScriptedServer;
  let home: ReturnType<typeof isolatedHome>;
  const evil = `red${ESC}[31mRED${ESC}]0;pwned${BEL}${RLO}txt.exe${ESC}[2J`;
  beforeAll(async () => {
    home = isolatedHome();
    server = await scriptedServer((_req, res) => {
      const url = _req.url ?? '';
      if (url.startsWith('/api/v1/services')) {
        json(res, 200, { success: true, data: [{ ...SERVICE, display_name: evil, description: evil }] });
        return;
      }
      if (url === '/api/v1/tasks/5') {
        json(res, 200, {
          success: true,
          data: {
            ...task(5, { status: 'failed', error_message: evil }),
            items: [{ target: evil, status: 'failed', data: { reason: evil }, error: evil }],
          },
        });
        return;
      }
      if (url.startsWith('/api/v1/tasks?') || url === '/api/v1/tasks') {
        json(res, 200, {
          success: true,
          data: [task(5, { service: evil, status: evil })],
          meta: { current_page: 1, total_pages: 1, total_count: 1, per_page: 25 },
        });
        return;
      }
      json(res, 404, { success: false, error: { code: 'not_found', message: `no such thing: ${evil}` } });
    });
  });
  afterAll(async () => {
    await server.close();
    home.cleanup();
  });

  it.each(['table', 'tsv', 'csv', 'json', 'ndjson'])(
    '-o %s: services, list, show and an error message carry no raw control characters',
    async (output) => {
      const env = { ...cliEnv(server.origin, home), FORCE_COLOR: '0' };
      for (const args of [['services'], ['list'], ['show', '5'], ['show', '6']]) {
        const result = await runInProcess(['-o', output, ...args], { env });
        expect([0, ExitCode.notFound]).toContain(result.code);
        for (const [name, text] of [
          ['stdout', result.stdout],
          ['stderr', result.stderr],
        ] as const) {
          expect(text, `${args.join(' ')} -o ${output} ${name}`).not.toMatch(
            /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/,
          );
        }
        const all = result.stdout + result.stderr;
        // What was there is still visible, escaped (\x1b in text, \u001b in JSON).
        expect(all).toMatch(/\\x1b|\\u001b/);
      }
    },
  );
});

describe('S10–S12 webhook signatures', () => {
  it('S10 signatureMatches compares SHA-256 digests with crypto.timingSafeEqual, whatever the presented length', () => {
    // Counts the comparisons without a module mock: node:crypto's export is swapped for a spy and the ES module's
    // bindings synced to it, for this synchronous test only (nothing else runs before they are restored).
    const crypto = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
    const real = crypto.timingSafeEqual;
    const spy = vi.fn(real);
    crypto.timingSafeEqual = spy;
    syncBuiltinESMExports();
    try {
      for (const presented of ['', 'x', KEY.slice(0, -1), KEY, `${KEY}x`, 'y'.repeat(10_000), KEY.toUpperCase()]) {
        spy.mockClear();
        expect(signatureMatches(presented, KEY)).toBe(presented === KEY);
        expect(spy).toHaveBeenCalledTimes(1);
        const [a, b] = spy.mock.calls[0]! as unknown as [Buffer, Buffer];
        expect(a.length).toBe(32);
        expect(b.length).toBe(32);
      }
    } finally {
      crypto.timingSafeEqual = real;
      syncBuiltinESMExports();
    }
    // Restored: the spy sees no more calls.
    spy.mockClear();
    expect(signatureMatches(KEY, KEY)).toBe(true);
    expect(spy).not.toHaveBeenCalled();
  });

  it('S11 the signature module never compares the secret with === or startsWith (source inspection)', () => {
    const source = readFileSync(fileURLToPath(new URL('../../src/webhook/signature.ts', import.meta.url)), 'utf8');
    const body = source.slice(source.indexOf('export function signatureMatches'));
    const fn = body.slice(0, body.indexOf('\n}\n'));
    expect(fn).toMatch(/timingSafeEqual\(/);
    expect(fn).not.toMatch(/===|!==|==|startsWith|localeCompare|\.equals\(/);
    // The listener's HTTP side checks the signature before it reads a body.
    const listener = readFileSync(fileURLToPath(new URL('../../src/webhook/deliveries.ts', import.meta.url)), 'utf8');
    expect(listener).toMatch(/signatureMatches\(presented, apiKey\)/);
    expect(listener).not.toMatch(/presented\s*[!=]==?\s*apiKey|apiKey\s*[!=]==?\s*presented/);
  });

  it('S12 the listener rejects a wrong signature with 401 and logs neither the presented value nor the key', async () => {
    const lines: string[] = [];
    const events: unknown[] = [];
    const listener = await startWebhookListener({
      port: 0,
      apiKey: KEY,
      log: (line) => lines.push(line),
      onEvent: (event) => void events.push(event),
    });
    try {
      const wrongGuess = 'sk_guess_7777_aaaa_bbbb';
      const body = JSON.stringify({
        event: 'processing',
        timestamp: '2025-01-15T12:00:00Z',
        task: {
          ...task(9, { status: 'processing' }),
          platform: 'domain',
          completed_items: 0,
          failed_items: 0,
          started_at: '2025-01-15T12:00:00Z',
        },
      });
      for (const signature of [wrongGuess, KEY.slice(0, -1), '', KEY]) {
        const response = await fetch(listener.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-webhook-signature': signature },
          body,
        });
        expect(response.status).toBe(signature === KEY ? 200 : 401);
      }
      expect(events).toHaveLength(1);
      const logged = lines.join('\n');
      expect(logged).not.toContain(wrongGuess);
      expect(logged).not.toContain(KEY.slice(0, -1));
      expect(logged).toMatch(/401/);
    } finally {
      await listener.close();
    }
  });
});

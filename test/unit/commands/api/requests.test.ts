/** `taskctl api` in-process: fields, --input, --include, exit codes, redaction, refused paths. */
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ctrlCWhen } from '../../../clock.js';
import { producer } from '../../core/items/item-sources.js';
import { stoppedInFlight } from '../stopped-in-flight.js';
import { API_KEY, FakeClock, mockApi, runTaskctl } from '../run-in-process.js';

const BALANCE = { success: true, data: { balance: 5, currency: 'coins' } };
const failure = (code: string, message: string) => ({ success: false, error: { code, message } });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'taskctl-api-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('taskctl api: requests', () => {
  it('GET by default; piped, the body is printed as it came, ending with a newline', async () => {
    const api = mockApi();
    const text = '{"success":true,"data":{"balance":5,"currency":"coins"},"zeta":1}';
    api.reply('GET', '/balance', 200, text);
    const result = await runTaskctl(['api', '/balance'], { api });
    expect(result).toEqual({ code: 0, stdout: `${text}\n`, stderr: '' });
  });

  it('piped, a body that already ends with a newline gets no second one', async () => {
    const api = mockApi();
    api.reply('GET', '/motd', 200, 'hello\n', { headers: { 'content-type': 'text/plain' } });
    const result = await runTaskctl(['api', '/motd'], { api });
    expect(result.stdout).toBe('hello\n');
  });

  it('on a terminal, JSON is pretty-printed', async () => {
    const api = mockApi();
    api.reply('GET', '/balance', 200, BALANCE);
    const result = await runTaskctl(['api', 'balance'], { api, stdoutTTY: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${JSON.stringify(BALANCE, null, 2)}\n`);
  });

  it('on a terminal, a body that is not JSON is printed inert', async () => {
    const api = mockApi();
    api.reply('GET', '/motd', 200, 'hello \u001b]0;pwned\u0007 world', { headers: { 'content-type': 'text/plain' } });
    const result = await runTaskctl(['api', '/motd'], { api, stdoutTTY: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('hello \\x1b]0;pwned\\x07 world\n');
  });

  it('-f fields are the query of a GET, in order', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks?page=2&per_page=5', 200, { success: true, data: [], meta: {} });
    const result = await runTaskctl(['api', '/tasks', '-f', 'page=2', '-f', 'per_page=5'], { api });
    expect(result.code).toBe(0);
    expect(api.calls).toEqual(['GET /tasks?page=2&per_page=5']);
  });

  it('POST fields are a JSON body: -f strings, -F typed, key[] lists in command-line order', async () => {
    const api = mockApi();
    const bodies: unknown[] = [];
    api.reply('POST', '/tasks', 201, { success: true, data: { id: 9 } }, { bodies });
    writeFileSync(join(dir, 'note.txt'), 'from a file');
    const result = await runTaskctl(
      [
        'api',
        'post',
        '/tasks',
        '-f',
        'service=domain_check_availability',
        '-f',
        'items[]=a.com',
        '-F',
        'items[]=b.com',
        '-f',
        'items[]=c.com',
        '-F',
        'count=5',
        '-F',
        'ratio=-1.5e2',
        '-F',
        'huge=12345678901234567890',
        '-F',
        'inf=1e999',
        '-F',
        'ok=true',
        '-F',
        'none=null',
        '-f',
        'zip=007',
        '-F',
        'odd=007',
        '-f',
        'flag=true',
        '-F',
        `note=@${join(dir, 'note.txt')}`,
        '-f',
        'eq=a=b',
      ],
      { api },
    );
    expect(result.code).toBe(0);
    expect(bodies).toEqual([
      {
        service: 'domain_check_availability',
        items: ['a.com', 'b.com', 'c.com'],
        count: 5,
        ratio: -150,
        huge: '12345678901234567890',
        inf: '1e999',
        ok: true,
        none: null,
        zip: '007',
        odd: '007',
        flag: 'true',
        note: 'from a file',
        eq: 'a=b',
      },
    ]);
  });

  it('-F key=@- reads the value from stdin', async () => {
    const api = mockApi();
    const bodies: unknown[] = [];
    api.reply('PATCH', '/things/1', 200, { success: true, data: {} }, { bodies });
    const result = await runTaskctl(['api', 'PATCH', '/things/1', '-F', 'text=@-'], { api, stdin: 'piped text\n' });
    expect(result.code).toBe(0);
    expect(bodies).toEqual([{ text: 'piped text\n' }]);
  });

  it('--input FILE is the body; fields then go to the query', async () => {
    const api = mockApi();
    const bodies: unknown[] = [];
    api.reply('POST', '/tasks?dry=1', 201, { success: true, data: { id: 1 } }, { bodies });
    const body = { service: 'domain_check_availability', items: ['x.com'] };
    writeFileSync(join(dir, 'body.json'), JSON.stringify(body));
    const result = await runTaskctl(['api', 'POST', '/tasks', '--input', join(dir, 'body.json'), '-f', 'dry=1'], {
      api,
    });
    expect(result.code).toBe(0);
    expect(bodies).toEqual([body]);
  });

  it('--input - reads the body from stdin', async () => {
    const api = mockApi();
    const bodies: unknown[] = [];
    api.reply('PUT', '/things/1', 200, { success: true, data: {} }, { bodies });
    const result = await runTaskctl(['api', 'PUT', '/things/1', '--input', '-'], { api, stdin: '[1, 2]' });
    expect(result.code).toBe(0);
    expect(bodies).toEqual([[1, 2]]);
  });

  it('--include prints the status line and headers (secrets redacted), a blank line, then the body', async () => {
    const api = mockApi();
    api.reply('GET', '/balance', 200, BALANCE, {
      headers: { 'x-ratelimit-remaining': '99', 'x-api-key': 'echoed', 'x-note': `key ${API_KEY}` },
    });
    const result = await runTaskctl(['api', '-i', '/balance'], { api });
    expect(result.code).toBe(0);
    const [head = '', body] = result.stdout.split('\n\n');
    const lines = head.split('\n');
    expect(lines[0]).toBe('HTTP 200 OK');
    expect(lines).toContain('content-type: application/json');
    expect(lines).toContain('x-ratelimit-remaining: 99');
    expect(lines).toContain('x-api-key: [REDACTED]');
    expect(lines).toContain('x-note: key [REDACTED]');
    expect(JSON.parse(body ?? '')).toEqual(BALANCE);
    expect(result.stdout).not.toContain(API_KEY);
  });

  it('a key echoed in the body is scrubbed, piped or not', async () => {
    for (const stdoutTTY of [false, true]) {
      const api = mockApi();
      api.reply('GET', '/whoami', 200, { success: true, data: { key: API_KEY } });
      const result = await runTaskctl(['api', '/whoami'], { api, stdoutTTY });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('[REDACTED]');
      expect(result.stdout).not.toContain(API_KEY);
    }
  });
});

describe('taskctl api: exit codes, with the body on stdout and the error on stderr', () => {
  it.each([
    [404, 'not_found', 5],
    [401, 'unauthorized', 4],
    [403, 'forbidden', 4],
    [422, 'validation_error', 3],
    [402, 'insufficient_balance', 6],
    [409, 'conflict', 12],
  ])('HTTP %i %s → exit %i', async (status, code, exit) => {
    const api = mockApi();
    const body = failure(code, 'the server says no');
    api.reply('GET', '/things/99999', status, body);
    const result = await runTaskctl(['api', '/things/99999'], { api });
    expect(result.code).toBe(exit);
    expect(JSON.parse(result.stdout)).toEqual(body);
    expect(result.stderr).toMatch(/^error: /);
    expect(api.calls).toEqual(['GET /things/99999']);
  });

  it('GET 5xx is resent, then exit 8 with the last body', async () => {
    const api = mockApi();
    api.reply('GET', '/x', 503, failure('internal_error', 'busy'), { times: 4 });
    const result = await runTaskctl(['api', '/x'], { api, clock: new FakeClock() });
    expect(result.code).toBe(8);
    expect(api.calls).toHaveLength(4);
    expect(JSON.parse(result.stdout)).toEqual(failure('internal_error', 'busy'));
    expect(result.stderr).toMatch(/after 4 attempts/);
  });

  it('POST 5xx is sent once: exit 8, saying it may have been carried out', async () => {
    const api = mockApi();
    api.reply('POST', '/tasks/7/cancel', 500, failure('internal_error', 'boom'));
    const result = await runTaskctl(['api', 'POST', '/tasks/7/cancel'], { api });
    expect(result.code).toBe(8);
    expect(api.calls).toEqual(['POST /tasks/7/cancel']);
    expect(result.stderr).toMatch(/may have been carried out/);
  });

  it('a 429 that lasts is exit 7 after the resends', async () => {
    const api = mockApi();
    api.reply('GET', '/x', 429, failure('rate_limited', 'slow down'), { times: 4, headers: { 'retry-after': '1' } });
    const result = await runTaskctl(['api', '/x'], { api, clock: new FakeClock() });
    expect(result.code).toBe(7);
    expect(api.calls).toHaveLength(4);
  });

  it('a 2xx saying success: false is not success', async () => {
    const api = mockApi();
    api.reply('GET', '/x', 200, failure('not_found', 'gone'));
    const result = await runTaskctl(['api', '/x'], { api });
    expect(result.code).toBe(5);
  });

  it("a raw read answers as it came: another task's body for /tasks/1, or JSON nested past 256 levels, is exit 0", async () => {
    const api = mockApi();
    const other = '{"success":true,"data":{"id":2,"service":"s","status":"completed","total_items":0}}';
    api.reply('GET', '/tasks/1', 200, other);
    const deep = `${'['.repeat(1000)}${']'.repeat(1000)}`;
    api.reply('GET', '/deep', 200, deep);
    expect(await runTaskctl(['api', '/tasks/1'], { api })).toEqual({ code: 0, stdout: `${other}\n`, stderr: '' });
    expect(await runTaskctl(['api', '/deep'], { api })).toEqual({ code: 0, stdout: `${deep}\n`, stderr: '' });
  });
});

describe('taskctl api: Ctrl-C or SIGTERM says whether the request may have been carried out', () => {
  /** Runs `taskctl api ARGV` and stops it with `signal` once the request is in flight. */
  const stoppedApi = (argv: string[], signal: 'SIGINT' | 'SIGTERM') =>
    stoppedInFlight(argv, { method: argv[1] ?? 'GET', path: argv[2] ?? '/', status: 201 }, signal);

  it.each([
    ['SIGINT' as const, 130],
    ['SIGTERM' as const, 143],
  ])(
    'POST /tasks stopped (%s) in flight: it may have created a task, check with taskctl list',
    async (signal, code) => {
      const argv = ['api', 'POST', '/tasks', '-f', 'service=domain_check_availability', '-f', 'items[]=a.com'];
      const result = await stoppedApi(argv, signal);
      expect(result.code).toBe(code);
      expect(result.stderr).toBe(
        'error: interrupted: the request may have created a task\nCheck with `taskctl list` before repeating it.\n',
      );
    },
  );

  it('any other method stopped in flight: it may have been carried out', async () => {
    const result = await stoppedApi(['api', 'PATCH', '/tasks/7', '-f', 'priority=high'], 'SIGINT');
    expect(result.code).toBe(130);
    expect(result.stderr).toBe(
      'error: interrupted: the request may have been carried out\nCheck its effect before repeating it.\n',
    );
  });

  it('POST stopped while it waits to be sent again after a 429 (not carried out): nothing was created', async () => {
    const api = mockApi();
    const limited = { success: false, error: { code: 'rate_limited', message: 'slow down' } };
    api.reply('POST', '/tasks', 429, limited, { headers: { 'retry-after': '20' } });
    const controller = new AbortController();
    const clock = ctrlCWhen(new FakeClock(), controller, (ms) => ms >= 1_000);
    const result = await runTaskctl(['api', 'POST', '/tasks', '-f', 'service=x'], {
      api,
      clock,
      signal: controller.signal,
    });
    expect(result.code).toBe(130);
    expect(result.stderr.trim().split('\n').slice(-2)).toEqual([
      'error: interrupted before anything was sent: nothing was created',
      'Re-run the same command to send it.',
    ]);
    expect(api.calls).toEqual(['POST /tasks']);
  });

  it('a GET stopped in flight changed nothing: said as every read is, and reading again is harmless', async () => {
    const result = await stoppedApi(['api', 'GET', '/balance'], 'SIGINT');
    expect(result.code).toBe(130);
    expect(result.stderr).toBe('error: interrupted\nNothing was changed; run the same command again.\n');
  });
});

describe('taskctl api: refusals before anything is sent (exit 2)', () => {
  it.each([
    [['api', 'https://evil.example/api/v1/balance']],
    [['api', '//evil.example/balance']],
    [['api', '/../__sandbox/state']],
    [['api', 'GET', '/tasks/%2e%2e/%2e%2e/__sandbox/state']],
    [['api', 'FETCH', '/balance']],
    [['api', 'POST']],
    [['api', 'delete']],
    [['api', '/balance', '--input', 'x.json']],
    [['api', 'DELETE', '/tasks/1', '--input', 'x.json']],
    [['api', '/tasks', '-f', 'novalue']],
    [['api', 'POST', '/tasks', '-f', 'a=1', '-f', 'a=2']],
  ])('%j', async (argv) => {
    const api = mockApi();
    const result = await runTaskctl(argv, { api });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/error/);
    expect(result.stdout).toBe('');
    expect(api.calls).toEqual([]);
  });

  it('--input that is not JSON is refused with where it goes wrong, in words', async () => {
    const api = mockApi();
    writeFileSync(join(dir, 'bad.json'), '{"service": ');
    const result = await runTaskctl(['api', 'POST', '/tasks', '--input', join(dir, 'bad.json')], { api });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `--input ${join(dir, 'bad.json')} is not valid JSON (it ends before the JSON is complete)`,
    );
    expect(api.calls).toEqual([]);
  });

  it('a missing --input file is exit 2', async () => {
    const api = mockApi();
    const result = await runTaskctl(['api', 'POST', '/tasks', '--input', join(dir, 'nope.json')], { api });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/nope\.json: no such file or directory\nCheck the path/);
    expect(result.stderr).not.toMatch(/ENOENT/);
  });

  it('stdin is read for one thing only', async () => {
    const api = mockApi();
    const result = await runTaskctl(['api', 'POST', '/x', '--input', '-', '-F', 'a=@-'], { api, stdin: '{}' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/stdin cannot feed both/);
  });
});

describe('taskctl api: a body past 16 MiB is refused before it is parsed or sent (exit 2)', () => {
  const MiB = 1024 * 1024;

  it('--input FILE: refused by its size, unread, naming the file and the size', async () => {
    const big = join(dir, 'big.json');
    writeFileSync(big, '');
    truncateSync(big, 16 * MiB + 1); // sparse: no disk used
    const api = mockApi();
    const result = await runTaskctl(['api', 'POST', '/tasks', '--input', big], { api });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: --input ${big} is larger than 16 MiB (16,777,217 bytes), the most taskctl sends as a request body\n` +
        'Split it into smaller requests; for many items, `taskctl create SERVICE -f FILE --chunk-size N` sends them in chunks.\n',
    );
    expect(api.calls).toEqual([]);
  });

  it('--input - and -F x=@-: an endless stdin is read to one chunk past 16 MiB, then refused', async () => {
    for (const argv of [
      ['api', 'POST', '/x', '--input', '-'],
      ['api', 'POST', '/x', '-F', 'x=@-'],
    ]) {
      const endless = producer(() => Buffer.alloc(MiB));
      const api = mockApi();
      const result = await runTaskctl(argv, { api, stdinStream: endless.stream });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^error: (--input|-F x=@) - \(stdin\) is larger than 16 MiB, .*; stopped reading\n/,
      );
      expect(endless.pulls()).toBe(17); // 16 MiB in full, then the byte past it
      expect(api.calls).toEqual([]);
    }
  });

  it('-F x=@/dev/zero: a device is read one byte past 16 MiB, then refused in words (no system error)', async () => {
    const result = await runTaskctl(['api', 'POST', '/x', '-F', 'x=@/dev/zero'], { api: mockApi() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: -F x=@ \/dev\/zero is larger than 16 MiB, .*; stopped reading\n/);
  });
});

/**
 * Hardening matrix, hostile-server rows (test/README.md, H1–H22): a service that drips, floods, nests, pages forever,
 * refuses with unknown codes and sends escape sequences. Every row runs `main()` in-process against the same server (on
 * a virtual clock, but for the request budget's rows, whose cut is a real timer); peak RSS and wall time are measured
 * per cell by `scripts/hostile-matrix.ts`.
 */
import { setFlagsFromString } from 'node:v8';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { systemClock } from '../../src/lib/time.js';
import { isolatedHome, KEY } from './scripted-server.js';
import { hostileServer, type HostileMode, type HostileServer } from './hostile-server.js';
import { FakeClock } from '../clock.js';
import { runTaskctl } from '../unit/commands/run-in-process.js';
import { main } from '../../src/main.js';
import { createMemoryIO } from '../../src/output/memory-io.js';

let server: HostileServer;
const home = isolatedHome();
beforeAll(async () => {
  server = await hostileServer();
});
afterAll(async () => {
  await server.close();
  home.cleanup();
});

const envFor = (mode: HostileMode) => ({ ...home.env, TASKCTL_BASE_URL: server.baseUrl(mode), TASKCTL_API_KEY: KEY });

/** One or two lines, `error: …` first, no stack, no transport internals, no key, no raw control characters. */
function expectPlainError(stderr: string): void {
  expect(stderr).toMatch(/^error: /);
  expect(stderr.trimEnd().split('\n').length).toBeLessThanOrEqual(2);
  expect(stderr).not.toMatch(/\n\s+at |UND_ERR|Maximum call stack|a bug in taskctl/);
  expect(stderr).not.toContain(KEY);
  expect(stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
}

describe('hostile server: big answers, in-process (peak RSS: scripts/hostile-matrix.ts)', () => {
  // Rows whose subject is memory run here in this process, for what the client does with a big answer: refused at the
  // cap as it streams in, or printed in pieces as it is parsed. Their peak RSS (under 300 MB for a 60 MiB answer) is a
  // cell of `scripts/hostile-matrix.ts`, which fails past 300 MB: `balance` × `flood-chunked` (H2), `show` × `nest`
  // (H4 in JSON), `show (ndjson)` × `long-strings` (H14); spawned here they cost the suite ~10 s of CPU.
  // A streamed answer puts V8 in its memory-saving mode for the rest of the process (src/api/request.ts): undone after
  // each row of this block, so the rows that follow do not pay its extra collections; the concurrent rows further down
  // (H4, H10) leave it to test/setup/after-each-checks.ts, which undoes it after each file.
  afterEach(() => {
    setFlagsFromString('--no-optimize-for-size');
  });
  it('H2 an endless chunked body: refused past the size cap without buffering it, exit 8, one request', async () => {
    const own = await hostileServer();
    try {
      const env = { ...home.env, TASKCTL_BASE_URL: own.baseUrl('flood-chunked'), TASKCTL_API_KEY: KEY };
      // Its subject is the size cap: a budget of 100 s lets a loaded machine reach 64 MiB before the budget ends.
      const r = await runTaskctl(['balance', '--request-timeout', '100s'], { env });
      expect(r.code, r.stderr).toBe(ExitCode.unavailable);
      expect(r.stderr).toMatch(/the answer is larger than 64 MiB/);
      expectPlainError(r.stderr);
      expect(own.counts.get('flood-chunked')).toBe(1);
    } finally {
      await own.close();
    }
  }, 120_000);

  it('H14 `show 1 -o ndjson` of long strings (3 MiB, parsed as it streams): every item once, written in pieces', async () => {
    // 50 items of 60,000 characters: past the 1 MiB from which an answer is parsed as it streams, and three times the
    // 1 MiB in which output is written (6 MiB proved no more and cost twice the CPU); the 60 MiB of the matrix's cell
    // adds only memory, which it measures.
    const own = await hostileServer({ longItems: 50 });
    const memory = createMemoryIO();
    try {
      const env = { ...home.env, TASKCTL_BASE_URL: own.baseUrl('long-strings'), TASKCTL_API_KEY: KEY };
      const code = await main(['show', '1', '-o', 'ndjson'], {
        io: memory.io,
        env,
        clock: new FakeClock(),
        signal: new AbortController().signal,
        random: () => 0.5,
      });
      expect(code, memory.stderr.text()).toBe(0);
      const lines = memory.stdout.text().split('\n');
      expect(lines.pop()).toBe('');
      expect(lines.map((line) => (JSON.parse(line) as { target: string }).target)).toEqual(
        Array.from({ length: 50 }, (_, i) => `d${i}.io`),
      );
      expect(lines.every((line) => line.includes('x'.repeat(60_000)))).toBe(true);
      // Printed in pieces of about 1 MiB, never as one string of the whole output.
      const writes = memory.stdout.chunks.map((chunk) => chunk.length);
      expect(writes.length).toBeGreaterThanOrEqual(3);
      expect(Math.max(...writes)).toBeLessThan(1.1 * 1024 * 1024);
    } finally {
      await own.close();
    }
  });
});

describe.concurrent('hostile server (in-process)', () => {
  // The request budget's rows wait real time (the cut is a timer): on the real clock, so the budget is spent.
  it('H1 a body dripped a byte every 50 ms: exit 8 when the request budget (--request-timeout) is spent, not 4 × it', async () => {
    // A server of its own, dripping far faster than any timeout: never idle long enough for an idle timeout.
    const own = await hostileServer({ dripMs: 50 });
    try {
      const env = { ...home.env, TASKCTL_BASE_URL: own.baseUrl('drip'), TASKCTL_API_KEY: KEY };
      const r = await runTaskctl(['balance', '--request-timeout', '1s'], { env, clock: systemClock });
      expect(r.code, r.stderr).toBe(ExitCode.unavailable);
      // The one attempt spent the whole budget: its time is said once (not again as "no time left … within 1s").
      expect(r.stderr).toMatch(/did not finish its answer within 1s\n/);
      expectPlainError(r.stderr);
      // One budget for the request with its resends (it was 4 attempts of the timeout each, plus back-off).
      expect(own.counts.get('drip')).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('H15 `balance --request-timeout 1s` when the headers never finish: exit 8 within the budget, not 4 × it', async () => {
    const own = await hostileServer();
    try {
      const env = { ...home.env, TASKCTL_BASE_URL: own.baseUrl('slow-headers'), TASKCTL_API_KEY: KEY };
      const r = await runTaskctl(['balance', '--request-timeout', '1s'], { env, clock: systemClock });
      expect(r.code, r.stderr).toBe(ExitCode.unavailable);
      expect(r.stderr).toMatch(/did not answer within 1s\n/);
      expectPlainError(r.stderr);
      expect(own.counts.get('slow-headers')).toBe(1); // one attempt: the budget covers the resends
    } finally {
      await own.close();
    }
  });

  it('H3 Content-Length: 1 GiB: refused before reading the body, exit 8, one request', async () => {
    const own = await hostileServer();
    try {
      const env = { ...home.env, TASKCTL_BASE_URL: own.baseUrl('flood-length'), TASKCTL_API_KEY: KEY };
      const r = await runTaskctl(['balance'], { env });
      expect(r.code, r.stderr).toBe(ExitCode.unavailable);
      expect(r.stderr).toMatch(/the answer is larger than 64 MiB \(1024 MiB announced\)/);
      expectPlainError(r.stderr);
      expect(own.counts.get('flood-length')).toBe(1);
    } finally {
      await own.close();
    }
  });

  it.each([['json'], ['table'], ['csv']])(
    'H4 item data nested 1,000,000 deep in `show -o %s`: a malformed response, exit 8, never a stack overflow',
    async (format) => {
      const r = await runTaskctl(['show', '1', '-o', format], { env: envFor('nest') });
      expect(r.code, r.stderr).toBe(ExitCode.unavailable);
      expect(r.stderr).toMatch(/nested deeper than 256 levels/);
      expectPlainError(r.stderr);
    },
  );

  it('H22 `show 1 -o json` of an answer holding 3,000,000 empty objects (9 MB): exit 8 naming the bound, never gigabytes', async () => {
    // In an item's result: one value, refused as it is scanned. An array parsed as it comes (the balance's field in
    // the matrix's `wide` case) is counted the same way (test/unit/api/json-stream.test.ts).
    const own = await hostileServer();
    try {
      const env = { ...home.env, TASKCTL_BASE_URL: own.baseUrl('wide'), TASKCTL_API_KEY: KEY };
      const r = await runTaskctl(['show', '1', '-o', 'json'], { env });
      expect(r.code, r.stderr).toBe(ExitCode.unavailable);
      expect(r.stderr).toContain('reading task 1: the response holds more than 2,500,000 objects and arrays');
      expectPlainError(r.stderr);
      expect(r.stdout).toBe('');
      // The same server would send it again: not resent.
      expect(own.counts.get('wide')).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('H5 `list --all` while total_pages keeps growing: exit 8 after a bounded walk', async () => {
    const own = await hostileServer();
    try {
      const env = { ...home.env, TASKCTL_BASE_URL: own.baseUrl('pages-growing'), TASKCTL_API_KEY: KEY };
      const r = await runTaskctl(['list', '--all', '-o', 'tsv'], { env });
      expect(r.code, r.stderr).toBe(ExitCode.unavailable);
      expect(r.stderr).toMatch(/the server's pages do not end \(total_pages grew from 2 to \d+/);
      expectPlainError(r.stderr);
      expect(own.counts.get('pages-growing')).toBeLessThanOrEqual(10);
    } finally {
      await own.close();
    }
  });

  it('H6 `list --all` over pages that repeat the same ids: exit 8 at the second page, the first page printed', async () => {
    const r = await runTaskctl(['list', '--all', '-o', 'tsv'], { env: envFor('pages-repeating') });
    expect(r.code, r.stderr).toBe(ExitCode.unavailable);
    expect(r.stderr).toMatch(/page 2 repeats tasks already listed/);
    expect(r.stdout.trim().split('\n')).toHaveLength(100); // --all asks for 100 a page
    expectPlainError(r.stderr);
  });

  it('H7 an error code taskctl does not know (409 conflict): exit 12 with the code and message, not resent', async () => {
    const before = server.counts.get('conflict') ?? 0;
    const r = await runTaskctl(['balance'], { env: envFor('conflict') });
    expect(r.code, r.stderr).toBe(ExitCode.refused);
    expect(r.stderr).toMatch(/refused.*conflict.*the task is locked by another job/);
    expect(r.stderr).not.toMatch(/try again later/i);
    expectPlainError(r.stderr);
    expect(server.counts.get('conflict')).toBe(before + 1);
  });

  it('H8 `--verbose` neutralises escape sequences in header values and error messages', async () => {
    const r = await runTaskctl(['balance', '--verbose'], { env: envFor('escapes') });
    expect(r.code, r.stderr).toBe(ExitCode.unavailable);
    expect(r.stderr).toMatch(/\\x1b\]52;c;/);
    expect(r.stderr).toMatch(/\\u009b31m/);
    expect(r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('H9 a connection closed half-way through the body: plain words, resent, exit 8', async () => {
    const before = server.counts.get('cut') ?? 0;
    const r = await runTaskctl(['balance'], { env: envFor('cut') });
    expect(r.code, r.stderr).toBe(ExitCode.unavailable);
    expect(r.stderr).toMatch(/the answer was cut off after 28 bytes \(HTTP 200, 200 announced\) after 4 attempts/);
    expect(r.stderr).not.toMatch(/base-url/);
    expectPlainError(r.stderr);
    expect(server.counts.get('cut')).toBe(before + 4);
  });

  it('H10 JSON nested 1,000,000 deep in `balance`: exit 8, not resent', async () => {
    // A server of its own: H4's rows, running at the same time, count 'nest' requests too.
    const own = await hostileServer();
    try {
      const env = { ...home.env, TASKCTL_BASE_URL: own.baseUrl('nest'), TASKCTL_API_KEY: KEY };
      const r = await runTaskctl(['balance', '-o', 'json'], { env });
      expect(r.code, r.stderr).toBe(ExitCode.unavailable);
      expect(r.stderr).toMatch(/nested deeper than 256 levels/);
      expectPlainError(r.stderr);
      expect(own.counts.get('nest')).toBe(1);
    } finally {
      await own.close();
    }
  });

  it.each([
    [['balance'], 'reading the balance'],
    [['services'], 'listing services'],
    [['list'], 'listing tasks'],
    [['show', '7'], 'reading task 7'],
  ])('H11 `%s` answered with a bare JSON string: exit 8 naming the request in words', async (argv, label) => {
    const r = await runTaskctl(argv, { env: envFor('odd') });
    expect(r.code, r.stderr).toBe(ExitCode.unavailable);
    expect(r.stderr).toContain(`error: ${label}: unexpected response from the server ((body): should be an object`);
    expectPlainError(r.stderr);
  });

  it('H21 a body gzipped unasked (a proxy): exit 8 naming the encoding as sent, inert, not resent', async () => {
    const before = server.counts.get('gzip') ?? 0;
    const r = await runTaskctl(['balance'], { env: envFor('gzip') });
    expect(r.code, r.stderr).toBe(ExitCode.unavailable);
    expect(r.stderr).toMatch(
      /^error: reading the balance: the server answered HTTP 200 with an encoded body taskctl did not ask for and does not decode \(Content-Encoding: gzip\\u009b31m\)\n/,
    );
    expectPlainError(r.stderr);
    expect(server.counts.get('gzip')).toBe(before + 1);
  });

  it('H12 `show 99999` of a task the server does not have: "task 99999 was not found", exit 5', async () => {
    const r = await runTaskctl(['show', '99999'], { env: envFor('missing') });
    expect(r.code, r.stderr).toBe(ExitCode.notFound);
    expect(r.stderr).toMatch(/^error: task 99999 was not found\n/);
    expect(r.stderr).not.toMatch(/GET \/tasks/);
    expectPlainError(r.stderr);
  });
  it.each([
    ['bad-gateway', ExitCode.unavailable, /HTTP 502 with a body that is not JSON/],
    ['limited', ExitCode.rateLimited, /last error: reading task 1: rate limited \(HTTP 429\)/],
    ['redirect-loop', ExitCode.unavailable, /redirect/],
  ] as const)(
    'H16 `wait 1` against %s for the whole wait: exit %i after the outage tolerance, never 124',
    async (mode, code, last) => {
      const r = await runTaskctl(['wait', '1', '--outage-tolerance', '30s', '-o', 'json'], { env: envFor(mode) });
      expect(r.code, r.stderr).toBe(code);
      expect(r.stderr).toMatch(
        /the service failed every read for the --outage-tolerance of 30s \(counted from its first failed read; no good answer at all in \d+s\); last error: /,
      );
      expect(r.stderr).toMatch(last);
      expect(r.stderr).toMatch(/last known: task 1 not seen/);
      // Nothing was seen: no `[]` on stdout for a failure.
      expect(r.stdout).toBe('');
    },
  );

  it('H17 `watch 1` against a service that answers once, then only 502s: exit 8 with the last known state', async () => {
    const own = await hostileServer();
    try {
      const env = { ...home.env, TASKCTL_BASE_URL: own.baseUrl('down-later'), TASKCTL_API_KEY: KEY };
      const r = await runTaskctl(['watch', '1', '--outage-tolerance', '1m', '-o', 'ndjson'], { env });
      expect(r.code, r.stderr).toBe(ExitCode.unavailable);
      expect(r.stderr).toMatch(
        /the service failed every read for the --outage-tolerance of 1m \(counted from its first failed read; no good answer for 1m\d*s?\)/,
      );
      expect(r.stderr).toMatch(/last known: task 1 processing/);
      expect(r.stderr).toMatch(/warning: .*no good answer for \d+s, still polling/);
    } finally {
      await own.close();
    }
  });

  it('H18 ids: a string id stays a string in JSON; an id beyond 2^53 is exit 8 naming the digits sent; no `[]`', async () => {
    const kept = await runTaskctl(['show', '7', '-o', 'json'], { env: envFor('odd-ids') });
    expect(kept.code, kept.stderr).toBe(0);
    expect((JSON.parse(kept.stdout) as { id: unknown }).id).toBe('7');
    const big = await runTaskctl(['show', '1', '-o', 'json'], { env: envFor('odd-ids') });
    expect(big.code).toBe(ExitCode.unavailable);
    expect(big.stderr).toMatch(/data\.id: task id 9007199254740993 is beyond 2\^53/);
    expectPlainError(big.stderr);
    const list = await runTaskctl(['list', '-o', 'json'], { env: envFor('odd-ids') });
    expect(list.code).toBe(ExitCode.unavailable);
    expect(list.stdout).toBe('');
  });

  it('H19 `X-RateLimit-Reset` in epoch milliseconds (5 s ahead, budget spent): the next request waits ~6 s, not 61 s', async () => {
    const clock = new FakeClock();
    const r = await runTaskctl(['show', '1', '2', '-o', 'tsv'], { env: envFor('reset-ms'), clock });
    expect(r.code, r.stderr).toBe(0);
    expect(clock.sleeps.length).toBeGreaterThan(0);
    expect(Math.max(...clock.sleeps)).toBeLessThan(10_000);
    expect(Math.max(...clock.sleeps)).toBeGreaterThan(3_000);
  });
  it('H20 `wait 1` against an answer past the 64 MiB cap: exit 8 at once (the same server sends it again), one request', async () => {
    const own = await hostileServer();
    try {
      const env = { ...home.env, TASKCTL_BASE_URL: own.baseUrl('flood-length'), TASKCTL_API_KEY: KEY };
      const r = await runTaskctl(['wait', '1', '-q'], { env });
      expect(r.code, r.stderr).toBe(ExitCode.unavailable);
      expect(r.stderr).toMatch(/the answer is larger than 64 MiB \(1024 MiB announced\)/);
      expect(own.counts.get('flood-length')).toBe(1);
    } finally {
      await own.close();
    }
  });
});

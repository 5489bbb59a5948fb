/**
 * Hardening matrix, input rows (test/README.md, I1–I28): bad item input through `taskctl create` (`main()` in this
 * process; the spawned bin where stdin is a real pipe from /dev/zero or an endless producer), against the sandbox. Every refusal is exit 3 with the place named (`file:line`) and nothing created; the reader's finer cases
 * are unit-tested in test/unit/core/items and listed in test/README.md.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readItems } from '../../src/core/items/index.js';
import { systemClock } from '../../src/lib/time.js';
import { ExitCode, InputError, UsageError } from '../../src/errors.js';
import { main } from '../../src/main.js';
import { createMemoryIO } from '../../src/output/memory-io.js';
import { startWorld, type CliResult, type E2EWorld } from '../e2e/spawn-cli.js';
import { KEY, runShell } from './scripted-server.js';
import { AS_ROOT, skippedUnless } from '../skip-reason.js';

interface SandboxState {
  tasks: Array<{ id: number }>;
}

interface InputWorld {
  world: E2EWorld;
  /** Writes a file of items into the world's home. */
  file: (name: string, content: string | Buffer) => string;
  /** `taskctl create ARGS` through `main()` in this process (the subject is the reader, not the process). */
  create: (args: string[], options?: { stdin?: string }) => Promise<CliResult>;
  /** Items of the task the CLI printed with -q. */
  itemsOf: (result: CliResult) => Promise<string[]>;
  taskCount: () => Promise<number>;
}

async function withWorld(body: (w: InputWorld) => Promise<void>): Promise<void> {
  const world = await startWorld({ itemMs: 0, apiKey: KEY });
  const dir = join(world.home.dir, 'items');
  mkdirSync(dir, { recursive: true });
  try {
    await body({
      world,
      file(name, content) {
        const path = join(dir, name);
        writeFileSync(path, content);
        return path;
      },
      create: (args, options = {}) => world.inProcess(['create', ...args], options),
      async itemsOf(result) {
        const id = result.stdout.trim();
        expect(id, result.stderr).toMatch(/^\d+$/);
        const show = await world.inProcess(['show', id, '-o', 'json']);
        return (JSON.parse(show.stdout) as { items: Array<{ target: string }> }).items.map((item) => item.target);
      },
      async taskCount() {
        return (await world.admin<SandboxState>('GET', '/__sandbox/state')).tasks.length;
      },
    });
  } finally {
    await world.close();
  }
}

const SERVICE = 'domain_check_availability';

/** Exit 3, the message matching, no stack trace, nothing created. */
async function expectRefused(w: InputWorld, result: CliResult, message: RegExp): Promise<void> {
  expect(result.code, result.stderr).toBe(ExitCode.input);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(await w.taskCount()).toBe(0);
}

function utf16le(text: string): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
}
function utf16be(text: string): Buffer {
  return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
}

describe.concurrent('input', () => {
  describe('I: encodings and line ends (accepted)', () => {
    it.each([
      [
        'I1 UTF-8 with BOM, CRLF, comments and blank lines',
        Buffer.from('\uFEFF# list\r\na.com\r\n\r\n  # indented comment\r\nb.com\r\n'),
      ],
      ['I2 UTF-16LE with BOM and CRLF', utf16le('a.com\r\nb.com\r\n')],
      ['I3 UTF-16BE with BOM', utf16be('a.com\nb.com')],
      ['I4 lone CR line ends (old Mac)', Buffer.from('a.com\rb.com\r')],
    ])('%s: exit 0, exactly the items', (_name, content) =>
      withWorld(async (w) => {
        const result = await w.create([SERVICE, '-f', w.file('items.txt', content), '-q']);
        expect(result.code, result.stderr).toBe(0);
        expect(await w.itemsOf(result)).toEqual(['a.com', 'b.com']);
      }),
    );

    it('I5 zero-width and non-breaking spaces at the edges are trimmed; a ZWSP inside a domain is dropped by IDNA', () =>
      withWorld(async (w) => {
        const input = '\u200Ba.com\u00A0\n\uFEFF b.com \u2060\n c\u200Bd.com\n';
        const result = await w.create([SERVICE, '-q'], { stdin: input });
        expect(result.code, result.stderr).toBe(0);
        expect(await w.itemsOf(result)).toEqual(['a.com', 'b.com', 'cd.com']);
      }));
  });

  describe('I: refused input (exit 3, nothing created)', () => {
    it.each([
      [
        'I6 invalid UTF-8 (Latin-1 byte)',
        Buffer.from('a.com\nm\xfcnchen.de\n', 'latin1'),
        /items\.txt:2: invalid UTF-8/,
      ],
      [
        'I7 NUL bytes',
        Buffer.from([0x61, 0x2e, 0x63, 0x6f, 0x6d, 0x0a, 0x62, 0x00, 0x0a]),
        /items\.txt:2: NUL byte: this looks like a binary file/,
      ],
      ['I8 UTF-16 without a BOM (NULs)', Buffer.from('a.com\n', 'utf16le'), /NUL byte[\s\S]*needs a byte-order mark/],
      [
        'I9 an unpaired surrogate in UTF-16LE',
        Buffer.concat([utf16le('a.com\n'), Buffer.from([0x00, 0xd8, 0x0a, 0x00])]),
        /items\.txt:2: invalid UTF-16/,
      ],
      [
        'I10 an escape sequence inside an item',
        Buffer.from('a.com\nb\u001b[31m.com\n'),
        /items\.txt:2: control character U\+001B \(escape\) inside an item/,
      ],
      ['I11 empty file', Buffer.alloc(0), /no items: .*items\.txt is empty or has only comments/],
      [
        'I12 comment-only file',
        Buffer.from('# nothing\n\n   # here\n'),
        /no items: .*items\.txt is empty or has only comments/,
      ],
    ])('%s', (_name, content, message) =>
      withWorld(async (w) => {
        await expectRefused(w, await w.create([SERVICE, '-f', w.file('items.txt', content)]), message);
      }),
    );

    // "Stopped": the message says so; a reader that went on would still finish, but the test's timeout guards a hang.
    it('I13 a 10 MiB line: stopped at the line cap', () =>
      withWorld(async (w) => {
        const path = w.file('big.txt', Buffer.alloc(10 * 1024 * 1024, 0x61));
        const result = await w.create([SERVICE, '-f', path]);
        await expectRefused(w, result, /big\.txt:1: line is longer than 65,536 characters; stopped reading/);
      }));

    it('I14 -f /dev/zero and stdin from /dev/zero: stopped at the first chunk', () =>
      withWorld(async (w) => {
        await expectRefused(w, await w.create([SERVICE, '-f', '/dev/zero']), /\/dev\/zero:1: NUL byte/);
        const piped = await runShell(`$TASKCTL create ${SERVICE} < /dev/zero`, w.world.env);
        await expectRefused(w, piped, /stdin:1: NUL byte/); // endless input: had it read on, runShell's guard kills it
      }));

    it('I15 an endless line on stdin (yes | tr -d "\\n"): stopped at the line cap, the producer is cut off', () =>
      withWorld(async (w) => {
        const result = await runShell(`yes example.com | tr -d '\\n' | $TASKCTL create ${SERVICE}`, w.world.env);
        await expectRefused(w, result, /stdin:1: line is longer than 65,536 characters/); // the pipeline ended
      }));

    it('I16 a directory, a missing file', () =>
      withWorld(async (w) => {
        const dir = join(w.world.home.dir, 'items');
        await expectRefused(w, await w.create([SERVICE, '-f', dir]), /cannot read .*items: it is a directory/);
        // Node reads a directory on stdin as nothing: never "stdin is empty", nor a wait for no ids.
        for (const command of [`create ${SERVICE}`, 'wait -', 'api POST /tasks --input -']) {
          const piped = await runShell(`$TASKCTL ${command} < '${dir}'`, w.world.env);
          await expectRefused(w, piped, /^error: cannot read stdin: it is a directory\n/);
        }
        // A key read from stdin is refused as every other key source is: exit 2, naming where it was to come from.
        const keys = {
          '--api-key-file - balance': 'cannot read --api-key-file -: it is a directory',
          'auth login --with-key': 'cannot read the API key from stdin: it is a directory',
        };
        for (const [command, words] of Object.entries(keys)) {
          const piped = await runShell(`$TASKCTL ${command} < '${dir}'`, w.world.env);
          expect(piped.code, piped.stderr).toBe(ExitCode.usage);
          expect(piped.stderr).toContain(`error: ${words}\n`);
        }
        await expectRefused(
          w,
          await w.create([SERVICE, '-f', join(dir, 'nope.txt')]),
          /cannot read .*nope\.txt: no such file/,
        );
      }));

    // chmod 000 does not stop root from reading, so the row only means something for other users.
    it.skipIf(process.getuid?.() === 0)(
      skippedUnless('I17 an unreadable file (chmod 000)', process.getuid?.() !== 0, AS_ROOT),
      () =>
        withWorld(async (w) => {
          const path = w.file('secret.txt', 'a.com\n');
          chmodSync(path, 0o000);
          await expectRefused(w, await w.create([SERVICE, '-f', path]), /cannot read .*secret\.txt: permission denied/);
        }),
    );

    it('I18 a non-breaking space inside a domain: named by line', () =>
      withWorld(async (w) => {
        await expectRefused(
          w,
          await w.create([SERVICE], { stdin: 'a.com\nc\u00A0d.com\n' }),
          /stdin:2: .*contains a space/,
        );
      }));

    it('I19 JSON with __proto__: never read through the prototype', () =>
      withWorld(async (w) => {
        const nested = '[{"__proto__": {"domain": "evil.com"}, "x": 1}]';
        await expectRefused(
          w,
          await w.create([SERVICE, '--format', 'json', '--column', 'domain'], { stdin: nested }),
          /stdin item 1 has no "domain" property/,
        );
        // An own property named __proto__ is just a property.
        const own = await w.create([SERVICE, '--format', 'json', '--column', '__proto__', '-q'], {
          stdin: '[{"__proto__": "own.com"}]',
        });
        expect(own.code, own.stderr).toBe(0);
        expect(await w.itemsOf(own)).toEqual(['own.com']);
      }));

    it('I20 10,000-deep JSON nesting, closed and unclosed; 1,000,000 deep', () =>
      withWorld(async (w) => {
        const deep = '['.repeat(10_000) + ']'.repeat(10_000);
        await expectRefused(
          w,
          await w.create([SERVICE, '--format', 'json'], { stdin: deep }),
          /stdin item 1 is an array; items must be strings/,
        );
        await expectRefused(
          w,
          await w.create([SERVICE, '--format', 'json'], { stdin: '['.repeat(10_000) }),
          /stdin:1:10001: invalid JSON \(it ends before the JSON is complete\)/,
        );
        // An element of 2,000,000 characters is past the element cap before its nesting matters.
        const deeper = '['.repeat(1_000_000) + ']'.repeat(1_000_000);
        await expectRefused(
          w,
          await w.create([SERVICE, '--format', 'json'], { stdin: deeper }),
          /stdin:1: item 1 is longer than 65,536 characters; stopped reading/,
        );
      }));

    it('I21 numbers beyond 2^53: refused, never rounded into an item', () =>
      withWorld(async (w) => {
        const json = await w.create([SERVICE, '--format', 'json'], { stdin: '["a.com", 12345678901234567890]' });
        await expectRefused(w, json, /stdin item 2 is a number; items must be strings/);
        expect(json.stderr).toMatch(/Quote numbers/);
        expect(json.stderr).not.toMatch(/12345678901234567000|1\.2345678901234567e\+19/);
        await expectRefused(
          w,
          await w.create([SERVICE, '--format', 'ndjson'], { stdin: '9007199254740993\n' }),
          /stdin:1: item is a number/,
        );
      }));

    it('I22 an empty argument (unset shell variable)', () =>
      withWorld(async (w) => {
        await expectRefused(w, await w.create([SERVICE, 'a.com', '']), /argument 2 is empty/);
      }));
  });

  describe('I: diff sides (exit 0, 15 or 3, never 1)', () => {
    const record = (value: string) => `{"target":"a.com","status":"completed","v":${value}}\n`;

    it('I26 a value nested 5,000 and 50,000 deep: compared, on either side', () =>
      withWorld(async (w) => {
        for (const depth of [5_000, 50_000]) {
          const one = w.file(`deep-${depth}-1.ndjson`, record(`${'['.repeat(depth)}1${']'.repeat(depth)}`));
          const two = w.file(`deep-${depth}-2.ndjson`, record(`${'['.repeat(depth)}2${']'.repeat(depth)}`));
          const same = await w.world.inProcess(['diff', one, one]);
          expect(same.code, same.stderr).toBe(0);
          const changed = await w.world.inProcess(['diff', one, two, '-o', 'json']);
          expect(changed.code, changed.stderr).toBe(ExitCode.differ);
          expect(changed.stderr).not.toMatch(/bug|stack/i);
        }
      }));

    it('I27 integers beyond 2^53: compared and printed by their digits', () =>
      withWorld(async (w) => {
        const one = w.file('big-1.ndjson', record('9007199254740993'));
        const two = w.file('big-2.ndjson', record('9007199254740992'));
        const result = await w.world.inProcess(['diff', one, two, '-o', 'ndjson']);
        expect(result.code, result.stderr).toBe(ExitCode.differ);
        expect(result.stdout).toContain('"before":9007199254740993,"after":9007199254740992');
        expect((await w.world.inProcess(['diff', one, one])).code).toBe(0);
      }));

    it('I28 a UTF-16 side is read; binary data is refused as a diff side', () =>
      withWorld(async (w) => {
        const text = record('true');
        const result = await w.world.inProcess([
          'diff',
          w.file('u16.ndjson', utf16le(text)),
          w.file('u8.ndjson', text),
        ]);
        expect(result.code, result.stderr).toBe(0);
        const binary = await w.world.inProcess(['diff', '/dev/zero', w.file('u8b.ndjson', text)]);
        expect(binary.code).toBe(ExitCode.input);
        expect(binary.stderr).toMatch(/\/dev\/zero:1: NUL byte: binary data, not a results file/);
        expect(binary.stderr).not.toMatch(/one item per line/);
      }));
  });

  describe('I: a terminal on stdin is never waited on', () => {
    it('I23 readItems with a TTY stream is a usage error and reads nothing', async () => {
      let pulls = 0;
      const tty = {
        isTTY: true,
        async *[Symbol.asyncIterator]() {
          pulls++;
          yield Buffer.from('a.com\n');
        },
      };
      const error = await readItems([{ kind: 'stdin', stream: tty }]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toBe('no items given');
      expect(pulls).toBe(0);
    });

    it('I24 `taskctl create SERVICE` on a terminal: exit 2 "no items given", nothing sent, stdin untouched', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'taskctl-tty-'));
      try {
        for (const args of [[SERVICE], [SERVICE, '-f', '-']]) {
          const memory = createMemoryIO({ stdinTTY: true, stderrTTY: true });
          let pulls = 0;
          memory.io.stdin = {
            isTTY: true,
            async *[Symbol.asyncIterator]() {
              pulls++;
              yield 'a.com\n';
            },
          };
          const env = {
            TASKCTL_CONFIG_DIR: join(dir, 'config'),
            TASKCTL_CACHE_DIR: join(dir, 'cache'),
            TASKCTL_STATE_DIR: join(dir, 'state'),
            TASKCTL_API_KEY: KEY,
            TASKCTL_BASE_URL: 'http://127.0.0.1:9',
          };
          const code = await main(['create', ...args], {
            io: memory.io,
            env,
            clock: systemClock,
            signal: new AbortController().signal,
          });
          expect(code, memory.stderr.text()).toBe(ExitCode.usage);
          expect(memory.stderr.text()).toMatch(/no items given/);
          expect(pulls).toBe(0);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('I25 prototype pollution: reading hostile JSON leaves Object.prototype alone', async () => {
      const hostile =
        '[{"__proto__": {"polluted": "yes", "domain": "x.com"}, "constructor": {"prototype": {"polluted": "yes"}}, "domain": "a.com"}]';
      const stream = {
        async *[Symbol.asyncIterator]() {
          yield Buffer.from(hostile);
        },
      };
      const { items } = await readItems([{ kind: 'stdin', stream }], { format: 'json', column: 'domain' });
      expect(items).toEqual(['a.com']);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      const error = await readItems(
        [
          {
            kind: 'stdin',
            stream: {
              async *[Symbol.asyncIterator]() {
                yield Buffer.from('[{"__proto__": {"domain": "x.com"}}]');
              },
            },
          },
        ],
        { format: 'json', column: 'domain' },
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
    });
  });
});

import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryIO, createMemoryStream } from '../../../src/output/memory-io.js';
import { createProgress, formatTimestamp, isCI, type Progress } from '../../../src/output/progress.js';
import { createRedactor } from '../../../src/output/redact.js';
import type { IO } from '../../../src/output/io.js';

const ESC = '\x1b';
const T0 = Date.UTC(2026, 10, 21, 10, 0, 0);

function fakeClock(start = T0) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** A stderr that looks like a real terminal to ora: tty cursor methods and events. */
function ttyStream() {
  const memory = createMemoryStream(true, 80);
  const emitter = new EventEmitter();
  return Object.assign(emitter, memory, {
    rows: 24,
    cursorTo: () => true,
    moveCursor: () => true,
    clearLine: () => true,
    write: memory.write,
  });
}

function ioWith(stderr: IO['stderr']): IO {
  const { io } = createMemoryIO();
  return { ...io, stderr };
}

let open: Progress | undefined;
afterEach(() => {
  open?.stop();
  open = undefined;
});

describe('plain-line progress', () => {
  it('is used when stderr is not a TTY, with timestamps and no escape codes', async () => {
    const memory = createMemoryIO({ stderrTTY: false });
    const clock = fakeClock();
    const progress = await createProgress({ io: memory.io, env: {}, format: 'table', clock });
    expect(progress.mode).toBe('lines');
    progress.update('task 42: processing 10/100');
    clock.advance(5000);
    progress.update('task 42: processing 10/100');
    progress.update('task 42: processing 50/100');
    progress.succeed('task 42: completed');
    expect(memory.stderr.text()).toBe(
      [
        '2026-11-21T10:00:00Z task 42: processing 10/100',
        '2026-11-21T10:00:05Z task 42: processing 50/100',
        '2026-11-21T10:00:05Z task 42: completed',
        '',
      ].join('\n'),
    );
    expect(memory.stderr.text()).not.toContain(ESC);
    expect(memory.stdout.text()).toBe('');
  });

  it('is used on a terminal when CI is set, or when the output is json/ndjson', async () => {
    for (const options of [
      { env: { CI: 'true' }, format: 'table' as const },
      { env: {}, ci: true, format: 'table' as const },
      { env: {}, format: 'json' as const },
      { env: {}, format: 'ndjson' as const },
    ]) {
      const stderr = ttyStream();
      const progress = await createProgress({ io: ioWith(stderr), clock: fakeClock(), ...options });
      expect(progress.mode).toBe('lines');
      progress.update('task 1: pending');
      progress.fail('task 1: failed');
      expect(stderr.text()).toBe('2026-11-21T10:00:00Z task 1: pending\n2026-11-21T10:00:00Z task 1: failed\n');
    }
  });

  it('with several lines, prints only the lines that changed', async () => {
    const memory = createMemoryIO();
    const progress = await createProgress({ io: memory.io, format: 'tsv', clock: fakeClock() });
    progress.update('task 1: pending\ntask 2: pending');
    progress.update('task 1: processing\ntask 2: pending');
    progress.update('task 1: processing\ntask 2: pending');
    expect(memory.stderr.text()).toBe(
      [
        '2026-11-21T10:00:00Z task 1: pending',
        '2026-11-21T10:00:00Z task 2: pending',
        '2026-11-21T10:00:00Z task 1: processing',
        '',
      ].join('\n'),
    );
  });

  it('heartbeat reprints the current lines with the current time', async () => {
    const memory = createMemoryIO();
    const clock = fakeClock();
    const progress = await createProgress({ io: memory.io, format: 'tsv', clock });
    progress.heartbeat();
    expect(memory.stderr.text()).toBe('');
    progress.update('task 9: processing 1/5');
    clock.advance(60_000);
    progress.heartbeat();
    expect(memory.stderr.text()).toBe(
      '2026-11-21T10:00:00Z task 9: processing 1/5\n2026-11-21T10:01:00Z task 9: processing 1/5\n',
    );
  });

  it('neutralises and redacts server text', async () => {
    const memory = createMemoryIO();
    const progress = await createProgress({
      io: memory.io,
      format: 'tsv',
      clock: fakeClock(),
      redact: createRedactor(['sk_secret_key']),
    });
    progress.update('task 1: \x1b[31mred\u202e sk_secret_key');
    expect(memory.stderr.text()).toBe('2026-11-21T10:00:00Z task 1: \\x1b[31mred\\u202e [REDACTED]\n');
  });

  it('quiet prints nothing at all', async () => {
    const stderr = ttyStream();
    const progress = await createProgress({ io: ioWith(stderr), format: 'table', quiet: true });
    expect(progress.mode).toBe('silent');
    progress.update('x');
    progress.heartbeat();
    progress.succeed('done');
    progress.fail('failed');
    expect(stderr.text()).toBe('');
  });
});

describe('spinner progress', () => {
  it('is used on a terminal outside CI for human formats', async () => {
    const stderr = ttyStream();
    open = await createProgress({ io: ioWith(stderr), env: {}, format: 'table', color: false });
    expect(open.mode).toBe('spinner');
    open.update('task 3: processing');
    expect(stderr.text()).toContain('task 3: processing');
    open.succeed('task 3: completed');
    expect(stderr.text()).toContain('✓ task 3: completed\n');
  });

  it('neutralises escape sequences in the spinner text', async () => {
    const stderr = ttyStream();
    open = await createProgress({ io: ioWith(stderr), env: {}, format: 'table', color: false });
    open.fail('task 3: \x1b]0;owned\x07');
    expect(stderr.text()).toContain('✗ task 3: \\x1b]0;owned\\x07\n');
  });

  it('needs a real terminal stream: isTTY alone is not enough for ora', async () => {
    const memory = createMemoryIO({ stderrTTY: true });
    const progress = await createProgress({ io: memory.io, env: {}, format: 'table', clock: fakeClock() });
    expect(progress.mode).toBe('lines');
  });
});

describe('helpers', () => {
  it('formatTimestamp is UTC to the second', () => {
    expect(formatTimestamp(T0 + 999)).toBe('2026-11-21T10:00:00Z');
  });

  it('isCI treats empty, 0 and false as unset', () => {
    expect([isCI({}), isCI({ CI: '' }), isCI({ CI: '0' }), isCI({ CI: 'false' })]).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect([isCI({ CI: 'true' }), isCI({ CI: '1' }), isCI({ CI: 'woodpecker' })]).toEqual([true, true, true]);
  });
});

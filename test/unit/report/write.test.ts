import {
  chmodSync,
  closeSync,
  constants,
  openSync,
  linkSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { parseReportSpec, reportOption } from '../../../src/report/write.js';

describe('parseReportSpec', () => {
  it('reads junit=FILE and github', () => {
    expect(parseReportSpec('junit=out/report.xml')).toEqual({ kind: 'junit', path: 'out/report.xml' });
    expect(parseReportSpec('github')).toEqual({ kind: 'github' });
  });

  it.each(['junit', 'junit=', 'xml=out.xml', 'GitHub', ''])('refuses %j as a usage error', (value) => {
    expect(() => parseReportSpec(value)).toThrow(UsageError);
  });
});

describe('--report', () => {
  const parse = (args: string[]) => {
    const command = new Command('x')
      .exitOverride()
      .configureOutput({ writeErr: () => {} })
      .addOption(reportOption());
    command.parse(args, { from: 'user' });
    return command.opts().report as unknown;
  };

  it('is repeatable', () => {
    expect(parse(['--report', 'junit=a.xml', '--report', 'github'])).toEqual([
      { kind: 'junit', path: 'a.xml' },
      { kind: 'github' },
    ]);
  });

  it('fails while parsing the flags (so create --wait never creates a task with a bad report flag)', () => {
    expect(() => parse(['--report', 'html=x'])).toThrow(/unknown report "html=x"/);
  });
});

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('writeReports', async () => {
  const { writeReports } = await import('../../../src/report/write.js');
  const { createMemoryIO } = await import('../../../src/output/memory-io.js');
  const { createPrinter } = await import('../../../src/output/printer.js');
  const task = {
    id: 5,
    service: 'domain_check_availability',
    status: 'completed',
    total_items: 2,
    cost: 2,
    created_at: '2026-11-21T10:00:00Z',
    items: [
      { target: 'a.com', status: 'completed', data: { available: true } },
      { target: 'fail-b.com', status: 'failed', error: 'boom sk_secret_1234' },
    ],
  };

  function fakeContext(env: Record<string, string>) {
    const memory = createMemoryIO();
    const redact = (text: string) => text.replaceAll('sk_secret_1234', '***');
    const printer = createPrinter({ io: memory.io, format: 'tsv', color: false, redact });
    return { memory, ctx: { io: memory.io, env, redact, printer } as unknown as Parameters<typeof writeReports>[0] };
  }

  it('writes the junit file (creating its directory), appends the summary, and puts annotations on stderr', async () => {
    dir = mkdtempSync(join(tmpdir(), 'taskctl-report-'));
    const summary = join(dir, 'summary.md');
    const { memory, ctx } = fakeContext({ GITHUB_STEP_SUMMARY: summary });
    await writeReports(ctx, [{ kind: 'junit', path: join(dir, 'deep', 'junit.xml') }, { kind: 'github' }], [task]);
    await writeReports(ctx, [{ kind: 'github' }], [task]);
    const xml = readFileSync(join(dir, 'deep', 'junit.xml'), 'utf8');
    expect(xml).toContain('tests="2" failures="1"');
    expect(xml).not.toContain('sk_secret_1234');
    // Appended, as GitHub expects from every step writing to the same summary file.
    expect(readFileSync(summary, 'utf8').match(/^\| 5 \|/gm)).toHaveLength(2);
    expect(memory.stdout.text()).toBe('');
    expect(memory.stderr.text()).toContain(
      '::error title=taskctl%3A task 5 item failed (domain_check_availability)::fail-b.com: boom ***\n',
    );
  });

  it('warns and skips the summary when GITHUB_STEP_SUMMARY is not set', async () => {
    const { memory, ctx } = fakeContext({});
    await writeReports(ctx, [{ kind: 'github' }], [task]);
    expect(memory.stderr.text()).toMatch(/warning: --report github: GITHUB_STEP_SUMMARY is not set/);
    expect(memory.stderr.text()).toContain('::error ');
  });

  it('warns, naming the file, when it cannot write it (the exit code stays the outcome)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'taskctl-report-'));
    const { memory, ctx } = fakeContext({});
    await writeReports(ctx, [{ kind: 'junit', path: dir }], [task]);
    expect(memory.stderr.text()).toBe(`warning: could not write the report to ${dir}: it is a directory\n`);
  });

  it(
    'warns at once when the directory cannot be made (/proc): no mkdir loop after the wait',
    { timeout: 2_000 },
    async () => {
      const { memory, ctx } = fakeContext({});
      // At once: no sleep on this path, so a spin (Node's recursive mkdir under /proc) is caught by the test's timeout.
      await writeReports(ctx, [{ kind: 'junit', path: '/proc/nope/x.xml' }], [task]);
      expect(memory.stderr.text()).toMatch(
        /^warning: could not write the report to \/proc\/nope\/x\.xml: \/proc\/nope cannot be made: its file system/,
      );
    },
  );
});

describe('checkReportTargets', async () => {
  const { checkReportTargets } = await import('../../../src/report/write.js');
  const check = (path: string) => () => {
    checkReportTargets([{ kind: 'github' }, { kind: 'junit', path }], { env: {} });
  };

  it('accepts a new file, an existing file, and missing directories under a directory', () => {
    dir = mkdtempSync(join(tmpdir(), 'taskctl-report-'));
    writeFileSync(join(dir, 'old.xml'), '');
    expect(check(join(dir, 'new.xml'))).not.toThrow();
    expect(check(join(dir, 'old.xml'))).not.toThrow();
    expect(check(join(dir, 'a', 'b', 'c.xml'))).not.toThrow();
    expect(() => {
      checkReportTargets(undefined, { env: {} });
    }).not.toThrow();
    // Proved by creating a file, which is removed: no probe and no empty report left behind.
    expect(readdirSync(dir).sort()).toEqual(['a', 'old.xml']);
    expect(readdirSync(join(dir, 'a', 'b'))).toEqual([]);
    expect(readFileSync(join(dir, 'old.xml'), 'utf8')).toBe('');
  });

  it('refuses at once, as root too, a directory that cannot be made or written (/proc)', { timeout: 2_000 }, () => {
    // At once: the check is synchronous with no sleep, so it either returns its answer or spins.
    expect(check('/proc/nope/x.xml')).toThrow(
      /^cannot write the report to \/proc\/nope\/x\.xml: \/proc\/nope cannot be made: its file system/,
    );
    // /proc/self exists and access() lets root write there; creating a file does not.
    expect(check('/proc/self/x.xml')).toThrow(/^cannot write the report to \/proc\/self\/x\.xml: /);
  });

  it('refuses a path through a dangling symlink', { timeout: 2_000 }, () => {
    dir = mkdtempSync(join(tmpdir(), 'taskctl-report-'));
    symlinkSync(join(dir, 'gone'), join(dir, 'out'));
    expect(check(join(dir, 'out', 'x.xml'))).toThrow(`${join(dir, 'out')} is a symlink to nothing (dangling)`);
  });

  it('refuses a directory, and a file on the way, as usage errors naming the path', () => {
    dir = mkdtempSync(join(tmpdir(), 'taskctl-report-'));
    writeFileSync(join(dir, 'domains.txt'), '');
    expect(check(dir)).toThrow(UsageError);
    expect(check(dir)).toThrow(`cannot write the report to ${dir}: it is a directory`);
    const under = join(dir, 'domains.txt', 'x', 'y.xml');
    expect(check(under)).toThrow(
      `cannot write the report to ${under}: ${join(dir, 'domains.txt')} is a file, not a directory`,
    );
  });
});

describe('checkReportTargets with a relative path', async () => {
  const { checkReportTargets } = await import('../../../src/report/write.js');
  it('names the path as the user wrote it', () => {
    dir = mkdtempSync(join(tmpdir(), 'taskctl-report-'));
    writeFileSync(join(dir, 'domains.txt'), '');
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      expect(() => {
        checkReportTargets([{ kind: 'junit', path: 'domains.txt/x.xml' }], { env: {} });
      }).toThrow('cannot write the report to domains.txt/x.xml: domains.txt is a file, not a directory');
      expect(() => {
        checkReportTargets([{ kind: 'junit', path: 'x.xml' }], { env: {} });
      }).not.toThrow();
    } finally {
      process.chdir(cwd);
    }
  });
});

describe('a report is never left empty, half-written, or blocking', async () => {
  const { checkReportTargets, writeReports } = await import('../../../src/report/write.js');
  const { createMemoryIO } = await import('../../../src/output/memory-io.js');
  const { createPrinter } = await import('../../../src/output/printer.js');
  const { execFileSync, spawn } = await import('node:child_process');
  const task = {
    id: 5,
    service: 's',
    status: 'completed',
    total_items: 0,
    cost: 0,
    created_at: '2026-11-21T10:00:00Z',
    items: [],
  };

  it.each([
    ['a FIFO (named pipe)', (path: string) => execFileSync('mkfifo', [path])],
    ['a symbolic link', (path: string) => symlinkSync('/dev/null', path)],
  ])('refuses %s at the pre-check, before any request, without opening it', { timeout: 2_000 }, (kind, make) => {
    dir = mkdtempSync(join(tmpdir(), 'taskctl-report-'));
    const path = join(dir, 'r.xml');
    make(path);
    expect(() => {
      checkReportTargets([{ kind: 'junit', path }], { env: {} });
    }).toThrow(`cannot write the report to ${path}: it is ${kind}, not a regular file`);
  });

  it('refuses a device (/dev/null) at the pre-check', () => {
    expect(() => {
      checkReportTargets([{ kind: 'junit', path: '/dev/null' }], { env: {} });
    }).toThrow('cannot write the report to /dev/null: it is a device, not a regular file');
  });

  /** A context whose summary goes to `summary`, stopped by `signal`. */
  const summaryContext = (summary: string, signal: AbortSignal) => {
    const memory = createMemoryIO();
    const printer = createPrinter({ io: memory.io, format: 'tsv', color: false, redact: (t: string) => t });
    const ctx = {
      io: memory.io,
      env: { GITHUB_STEP_SUMMARY: summary },
      redact: (t: string) => t,
      printer,
      signal,
    } as unknown as Parameters<typeof writeReports>[0];
    return { memory, ctx };
  };
  /** A FIFO in a new directory, for GITHUB_STEP_SUMMARY. */
  const newFifo = () => {
    dir = mkdtempSync(join(tmpdir(), 'taskctl-report-'));
    const fifo = join(dir, 'summary');
    execFileSync('mkfifo', [fifo]);
    return fifo;
  };

  it(
    'a GITHUB_STEP_SUMMARY that is a FIFO nobody reads: a warning at once, never a wait',
    { timeout: 2_000 },
    async () => {
      const fifo = newFifo();
      const { memory, ctx } = summaryContext(fifo, new AbortController().signal);
      await writeReports(ctx, [{ kind: 'github' }], [task]);
      expect(memory.stderr.text()).toContain(
        `warning: could not write the report to ${fifo}: no such device (a FIFO with no reader?)`,
      );
    },
  );

  // 2,000 tasks: a summary of 85 KiB, more than a pipe holds (64 KiB), so the writer must wait for the reader.
  const manyTasks = Array.from({ length: 2_000 }, (_, index) => ({ ...task, id: index + 1 }));

  it(
    'a GITHUB_STEP_SUMMARY that is a FIFO whose reader is slow: the summary reaches it whole (more than a pipe holds)',
    { timeout: 5_000 },
    async () => {
      const fifo = newFifo();
      // Held open (read and write) by the test until the write is done: the reader's `cat` starts late and cannot
      // see the end of the FIFO before taskctl has opened it.
      const keeper = openSync(fifo, constants.O_RDWR);
      // The pipe is the subject: a real reader process that starts reading a moment late.
      const reader = spawn('sh', ['-c', 'exec 0<"$1"; sleep 0.1; exec cat', 'sh', fifo], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const chunks: Buffer[] = [];
      reader.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
      const exited = new Promise((resolve) => reader.once('close', resolve));
      const { memory, ctx } = summaryContext(fifo, new AbortController().signal);
      try {
        await writeReports(ctx, [{ kind: 'github' }], manyTasks);
      } finally {
        closeSync(keeper);
        await exited;
      }
      const { githubSummary } = await import('../../../src/report/github.js');
      const expected = githubSummary(manyTasks);
      expect(expected.length).toBeGreaterThan(64 * 1024);
      expect(memory.stderr.text()).not.toContain('warning');
      expect(Buffer.concat(chunks).toString('utf8')).toBe(expected);
    },
  );

  it(
    'a GITHUB_STEP_SUMMARY that is a FIFO whose reader never reads: waits, and a stop signal ends the wait at once',
    { timeout: 5_000 },
    async () => {
      const fifo = newFifo();
      // A reader that never reads: the pipe fills and stays full.
      const keeper = openSync(fifo, constants.O_RDWR);
      const controller = new AbortController();
      const { ctx } = summaryContext(fifo, controller.signal);
      try {
        let settled = false;
        const writing = writeReports(ctx, [{ kind: 'github' }], manyTasks).finally(() => {
          settled = true;
        });
        // Many turns of the event loop: the write is still waiting for room in the pipe.
        for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
        expect(settled).toBe(false);
        const reason = Object.assign(new Error('interrupted'), { name: 'AbortError', signal: 'SIGTERM' });
        controller.abort(reason);
        await expect(writing).rejects.toBe(reason);
      } finally {
        closeSync(keeper);
      }
    },
  );

  it('replaces an existing report by a new file renamed over it (never written in place), keeping its mode', async () => {
    dir = mkdtempSync(join(tmpdir(), 'taskctl-report-'));
    const path = join(dir, 'r.xml');
    writeFileSync(path, 'old report', { mode: 0o640 });
    chmodSync(path, 0o640);
    // A second name for the old file: a write in place would change it too; a rename leaves it as it was, which is
    // what makes a full disk leave the old report rather than an empty or half one.
    linkSync(path, join(dir, 'old.xml'));
    const memory = createMemoryIO();
    const printer = createPrinter({ io: memory.io, format: 'tsv', color: false, redact: (t: string) => t });
    const ctx = { io: memory.io, env: {}, redact: (t: string) => t, printer } as unknown as Parameters<
      typeof writeReports
    >[0];
    await writeReports(ctx, [{ kind: 'junit', path }], [task]);
    expect(readFileSync(path, 'utf8')).toContain('<testsuite');
    expect(readFileSync(join(dir, 'old.xml'), 'utf8')).toBe('old report');
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir).sort()).toEqual(['old.xml', 'r.xml']);
  });
});

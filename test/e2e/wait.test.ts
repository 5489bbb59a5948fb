/** Following tasks against a real sandbox: `wait` exit codes, `create --wait`, ids from stdin, `watch` events run `main()`
 * in this process, in virtual time shared with the sandbox; real pipes spawn the bin (one for a reader that goes away,
 * the others keep their outcome behind the same guard in this process). Ctrl-C of a wait (exit 130, the resume line):
 * signals.test.ts. */
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebhookEventSchema } from '../../src/api/schemas.js';
import { FakeClock } from '../clock.js';
import { main } from '../../src/main.js';
import { createMemoryIO } from '../../src/output/memory-io.js';
import { guardStdout } from '../../src/output/stdout-guard.js';
import { brokenStdout } from '../unit/commands/broken-stdout.js';
import { BIN, runProcess, startWorld, type E2EWorld } from './spawn-cli.js';

let world: E2EWorld;
/** One virtual clock for the sandbox and the command: a wait's sleeps advance the sandbox's work, no real time passes. */
let clock: FakeClock;
let VIRTUAL: { clock: FakeClock };
beforeEach(async () => {
  clock = new FakeClock(Date.now());
  VIRTUAL = { clock };
  world = await startWorld({ itemMs: 20, clock });
});
afterEach(() => world.close());

/** A task straight on the sandbox (on its clock): the subject here is the wait, not the create. */
const create = async (items: string[]): Promise<number> =>
  (await world.createTask('domain_check_availability', items)).id;

const FAST = ['--interval', '100ms'];

describe('wait', () => {
  it('exits 0 when every task completed with every item, and prints the final tasks', async () => {
    const a = await create(['a.com', 'b.com']);
    const b = await create(['c.com']);
    const result = await world.inProcess(['wait', String(a), String(b), ...FAST], VIRTUAL);
    expect(result.code).toBe(0);
    const rows = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(rows.map((r) => [Number(r[0]), r[2]])).toEqual([
      [a, 'completed'],
      [b, 'completed'],
    ]);
  });

  it('exits 10 when a task failed, naming it', async () => {
    const id = await create(['a.com', 'taskfail-x.com']);
    const result = await world.inProcess(['wait', String(id), ...FAST], VIRTUAL);
    expect(result.code).toBe(10);
    expect(result.stderr).toMatch(new RegExp(`task ${id} failed`));
  });

  it('exits 11 when items failed, and 0 with --allow-item-failures', async () => {
    const id = await create(['a.com', 'fail-x.com']);
    const result = await world.inProcess(['wait', String(id), ...FAST], VIRTUAL);
    expect(result.code).toBe(11);
    expect(result.stderr).toMatch(/completed with 1 failed item: taskctl show/);
    const allowed = await world.inProcess(['wait', String(id), ...FAST, '--allow-item-failures'], VIRTUAL);
    expect(allowed.code).toBe(0);
  });

  it('exits 124 on --timeout with the resume command', async () => {
    // 20 slow items: 4 s of the sandbox's time. One poll, then the deadline: a request's budget is the time left to the
    // deadline in real time, so a timeout of 300 ms with polls every 100 ms cut the last read short on a loaded machine
    // (a failed read at the deadline is exit 8, not 124).
    const id = await create(Array.from({ length: 20 }, (_, i) => `slow-${i}.com`));
    const result = await world.inProcess(['wait', String(id), '--interval', '5s', '--timeout', '3s'], VIRTUAL);
    expect(result.code).toBe(124);
    expect(result.stderr).toMatch(new RegExp(`still running: taskctl wait ${id}`));
  });

  it('reads ids from stdin with -, so create -q pipes into it', async () => {
    const a = await create(['a.com']);
    const b = await create(['b.com']);
    const result = await world.inProcess(['wait', '-', ...FAST, '-q'], { clock, stdin: `${a}\n${b}\n` });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
  });

  it('--until processing returns once the task started', async () => {
    const id = await create(['slow-a.com', 'slow-b.com', 'slow-c.com']);
    const result = await world.inProcess(['wait', String(id), ...FAST, '--until', 'processing', '-o', 'json'], VIRTUAL);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as Array<{ status: string }>)[0]!.status).toBe('processing');
  });

  it('prints plain timestamped progress lines (no escape codes) when stderr is not a terminal', async () => {
    const id = await create(['a.com', 'b.com']);
    const result = await world.inProcess(['wait', String(id), ...FAST], VIRTUAL);
    expect(result.stderr).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ (✓ )?task \d+ /m);
    expect(result.stderr).not.toContain('\x1b');
  });

  it('in CI, a 10 s task shows counts that move, without placeholder or duplicate lines', async () => {
    const id = await create(Array.from({ length: 500 }, (_, i) => `ci${i}.example.com`));
    const result = await world.inProcess(['wait', String(id)], { clock, env: { CI: 'true' } });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.replace(/^\S+Z /, ''));
    const counts = new Set(lines.map((line) => /items (\d+)\/500/.exec(line)?.[1]).filter(Boolean));
    expect(counts.size, result.stderr).toBeGreaterThanOrEqual(3);
    expect(new Set(lines).size).toBe(lines.length);
    expect(lines.some((line) => line.includes('…'))).toBe(false);
    expect(lines.at(-1)).toMatch(new RegExp(`^✓ task ${id} completed items 500/500 \\(100% finished\\)`));
  }, 30_000);

  it('exits 5 for an unknown task', async () => {
    const result = await world.inProcess(['wait', '4242', ...FAST], VIRTUAL);
    expect(result.code).toBe(5);
  });

  it('survives transient 502s mid-wait', async () => {
    const id = await create(['a.com', 'b.com', 'c.com']);
    await world.admin('POST', '/__sandbox/faults', { method: 'GET', path: '/tasks', kind: 'non-json', count: 2 });
    const result = await world.inProcess(['wait', String(id), ...FAST], VIRTUAL);
    expect(result.code).toBe(0);
  });
});

describe('a reader of stdout that goes away', () => {
  /** `taskctl ARGS | true` in bash: taskctl's own exit code and stderr. */
  async function intoTrue(args: string[]): Promise<{ code: number; stderr: string }> {
    const script = `"${process.execPath}" "${BIN}" ${args.join(' ')} | true; echo "exit=\${PIPESTATUS[0]}" >&2`;
    const result = await runProcess('bash', ['-c', script], {
      env: { ...world.env, PATH: process.env.PATH ?? '/usr/bin:/bin' },
      label: script,
    });
    return { code: Number(/exit=(\d+)/.exec(result.stderr)?.[1]), stderr: result.stderr };
  }

  /**
   * `main(ARGS)` in this process with the bin's guard (src/boot.ts) on a stdout whose reader left before the first
   * write: the exit code the guard ends the run with (what `taskctl ARGS | true` exits with).
   */
  async function guardedExit(args: string[]): Promise<number | undefined> {
    const memory = createMemoryIO();
    const stdout = brokenStdout(0);
    let exited: number | undefined;
    // The guard's stderr: only its error events matter here (the command writes to the memory stream).
    const stderr = Object.assign(new EventEmitter(), { write: (text: string) => memory.stderr.write(text) });
    const streams = [stdout, stderr] as unknown as Parameters<typeof guardStdout>;
    guardStdout(streams[0], streams[1], (code) => (exited ??= code));
    await main(args, {
      io: { ...memory.io, stdout },
      env: world.env,
      clock,
      signal: new AbortController().signal,
      random: () => 0.5,
    });
    return exited;
  }

  it('never turns a known failure into exit 0: wait and watch keep 10 and 11', async () => {
    const failed = await create(['a.com', 'taskfail-x.com']);
    const itemFailed = await create(['b.com', 'fail-y.com']);
    expect((await world.inProcess(['wait', String(failed), String(itemFailed), ...FAST], VIRTUAL)).code).toBe(10);
    // The bin behind a real pipe: its guard ends the run with the outcome the command settled on.
    expect((await intoTrue(['wait', String(failed)])).code).toBe(10);
    // Each command settles its outcome before it prints: in this process, the same guard on a closed stdout.
    const codes = [];
    for (const args of [
      ['wait', String(itemFailed)],
      ['watch', String(failed)],
      ['wait', String(itemFailed), '--allow-item-failures'],
    ])
      codes.push(await guardedExit([...args, ...FAST]));
    expect(codes).toEqual([11, 10, 0]);
  });
});

describe('list -q | taskctl wait - (a real pipe)', () => {
  it('the ids list -q prints are what wait reads: it waits on them all, prints nothing and exits 0', async () => {
    const real = await startWorld({ itemMs: 5 });
    try {
      const env = { ...real.env, PATH: process.env.PATH ?? '/usr/bin:/bin' };
      for (const items of [['a.com'], ['b.com', 'c.com']]) await real.createTask('domain_check_availability', items);
      const taskctl = `"${process.execPath}" "${BIN}"`;
      const script = `${taskctl} list -q | tee ids.txt | ${taskctl} wait - -q --interval 100ms`;
      const result = await runProcess('bash', ['-c', script], {
        env,
        label: script,
        timeoutMs: 30_000,
        cwd: real.home.dir,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('');
      expect(readFileSync(join(real.home.dir, 'ids.txt'), 'utf8')).toBe('2\n1\n');
      const states = await real.inProcess(['list', '-o', 'json']);
      expect((JSON.parse(states.stdout) as Array<{ status: string }>).map((t) => t.status)).toEqual([
        'completed',
        'completed',
      ]);
    } finally {
      await real.close();
    }
  });
});

describe('create --wait', () => {
  it('waits on the new task with the same exit codes', async () => {
    const result = await world.inProcess(
      ['create', 'domain_check_availability', 'a.com', 'fail-b.com', '--wait', ...FAST, '-o', 'json'],
      VIRTUAL,
    );
    expect(result.code).toBe(11);
    const tasks = JSON.parse(result.stdout) as Array<{ status: string; failed_items: number }>;
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ status: 'completed', failed_items: 1 });
  });
});

describe('watch', () => {
  it('-o ndjson emits webhook-shaped events for each status change', async () => {
    const id = await create(['a.com', 'b.com', 'c.com']);
    const result = await world.inProcess(['watch', String(id), ...FAST, '-o', 'ndjson'], VIRTUAL);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => WebhookEventSchema.parse(JSON.parse(line)));
    expect(events.at(-1)!.event).toBe('completed');
    expect(events.every((e) => e.task.id === id)).toBe(true);
  });

  it('with no ids follows every unfinished task and exits with the outcome', async () => {
    const a = await create(['slow-a.com', 'slow-b.com', 'slow-c.com', 'slow-d.com', 'slow-e.com']);
    const b = await create(['slow-f.com', 'slow-g.com', 'slow-h.com', 'slow-i.com', 'taskfail-j.com']);
    const result = await world.inProcess(['watch', ...FAST], VIRTUAL);
    expect(result.code).toBe(10);
    expect(result.stdout).toMatch(new RegExp(`\\t${a}\\tdomain_check_availability\\tcompleted\\t5\\t0\\t5$`, 'm'));
    expect(result.stdout).toMatch(new RegExp(`\\t${b}\\tdomain_check_availability\\tfailed\\t`, 'm'));
  });
});

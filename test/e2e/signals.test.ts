/**
 * Signals by convention (docs/behaviour.md#exit-codes): SIGTERM exits 143 and SIGHUP 129, with the same next-step line
 * as Ctrl-C (130); a SIGHUP whose terminal is gone (the next-step line cannot be written) is still 129, never 14. The
 * bin is spawned; the sandbox's clock stands still, so the task never ends. The two servers stop with 0 when asked to
 * (one path in src/main.ts for every stop signal): `webhook listen` at SIGHUP in webhook.test.ts (a second Ctrl-C, 130,
 * there too), `sandbox` at SIGTERM in sandbox-command.test.ts and at SIGHUP in sandbox-kill.test.ts (each signal sent to
 * a listener or a sandbox those tests start anyway). A signal while taskctl is still loading is held for the command,
 * which says nothing was sent.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../clock.js';
import { BIN, exitOf, postsReceived, startWorld, waitFor, type E2EWorld } from './spawn-cli.js';

// One sandbox for the file: each test follows a task of its own.
let world: E2EWorld;
let clock: FakeClock;
beforeAll(async () => {
  clock = new FakeClock(Date.now());
  world = await startWorld({ itemMs: 20, clock });
});
afterAll(() => world.close());

/** A task straight on the sandbox (on its clock): the subject here is the signal, not the create. */
const longTask = async (): Promise<number> =>
  (await world.createTask('domain_check_availability', ['slow-a.com', 'slow-b.com'])).id;

/** Spawns `taskctl args`, waits until its output (either stream) matches `ready`, sends `signal`; exit code and stderr. */
async function stopWith(
  args: string[],
  ready: RegExp,
  signal: NodeJS.Signals,
  options: { closeOutput?: boolean } = {},
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...world.env } });
  let stderr = '';
  let seen = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    seen += chunk;
  });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (seen += chunk));
  const closed = () => exitOf(child, { describe: () => `output so far: ${seen}` });
  try {
    // Start-up under load can take seconds: a generous bound, which fails with what was printed.
    await waitFor(() => ready.test(seen), { timeoutMs: 20_000, describe: () => `output so far: ${seen}` });
  } catch (error) {
    child.kill('SIGKILL');
    await closed();
    throw error;
  }
  if (options.closeOutput) {
    // The terminal is gone: whatever the command writes from now on fails.
    child.stdout.destroy();
    child.stderr.destroy();
  }
  child.kill(signal);
  return { code: (await closed()).code, stderr };
}

// A bound, not a measure: a spawn's start-up waits up to 20 s above, after the file's first in-process run.
describe('signals', { timeout: 60_000 }, () => {
  // SIGTERM's 143 and its resume line: watch, below (one stop signal is one path in main.ts for both commands).
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGHUP', 129],
  ] as const) {
    it(`wait: ${signal} exits ${code} with the resume line`, async () => {
      const id = await longTask();
      const result = await stopWith(['wait', String(id), '--interval', '100ms'], new RegExp(`task ${id} `), signal);
      expect(result.code).toBe(code);
      expect(result.stderr).toMatch(new RegExp(`still running: taskctl wait ${id}`));
      expect(result.stderr).not.toMatch(/error:/);
    });
  }

  it('watch: SIGTERM exits 143 with the resume line', async () => {
    const id = await longTask();
    const result = await stopWith(['watch', String(id), '--interval', '100ms'], /processing|pending/, 'SIGTERM');
    expect(result.code).toBe(143);
    expect(result.stderr).toMatch(new RegExp(`still running: taskctl watch ${id}`));
    expect(result.stderr).not.toMatch(/error:/);
  });

  it('SIGHUP with the terminal gone is still 129, not 14', async () => {
    const id = await longTask();
    const result = await stopWith(['wait', String(id), '--interval', '100ms'], new RegExp(`task ${id} `), 'SIGHUP', {
      closeOutput: true,
    });
    expect(result.code).toBe(129);
  });

  it('create: SIGINT while taskctl loads is heard by the command (nothing sent, said so), not a silent death', async () => {
    // Raised by the process itself as it reads its bundle: the moment is the subject, not the machine's speed.
    const preload = join(world.home.dir, 'signal-at-load.cjs');
    writeFileSync(
      preload,
      `const fs = require('node:fs'), read = fs.readFileSync;
fs.readFileSync = function (path, ...rest) {
  if (String(path).endsWith('taskctl.cjs')) (fs.readFileSync = read), process.kill(process.pid, 'SIGINT');
  return read.call(this, path, ...rest);
};
`,
    );
    const posts = await postsReceived(world);
    const child = spawn(
      process.execPath,
      ['--require', preload, BIN, 'create', 'domain_check_availability', 'a.com', '-y'],
      {
        env: { PATH: process.env.PATH ?? '', ...world.env },
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.resume();
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.on('close', (...ended) => resolve(ended)),
    );
    expect({ code, signal }).toEqual({ code: 130, signal: null });
    expect(stderr).toMatch(/^error: interrupted before anything was sent: nothing was created\n/);
    expect(await postsReceived(world)).toBe(posts);
  });
});

/**
 * What a person sees in a real terminal (tmux) with colours on: the short overview at 80 columns (create --wait's
 * results table at 80 is the README's quick start's, quick-start.test.ts; every width from 40 is rendered in process,
 * the results table's rows checked from 80: tty-widths.test.ts); a 20-task wait
 * redraws its block in place, within the width, leaving the scrollback alone; a sandbox stopped with SIGSTOP mid-wait
 * is shown as not answering, with the counts it last reported and no estimate. All side by side. Screens are kept as
 * fixtures in test/e2e/fixtures/ for review (written when TASKCTL_WRITE_FIXTURES=1). Skipped without tmux.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, isolatedHome, startWorld, suiteCodeCache, type E2EWorld } from './spawn-cli.js';
import { expectClean, fixture, hasTmux, openTerminal, type Terminal } from './tmux.js';
import { textWidth } from '../../src/output/width.js';
import { missing, skippedUnless } from '../skip-reason.js';

let world: E2EWorld;
/** The pager the results open in (without it they are printed as they are). */
const hasLess = spawnSync('less', ['--version'], { stdio: 'ignore' }).status === 0;
let terminal: Terminal | undefined;

beforeAll(async () => {
  world = await startWorld({ itemMs: 20 });
  if (hasTmux) terminal = openTerminal('results');
});

afterAll(async () => {
  terminal?.close();
  await world.close();
});

function term(): Terminal {
  if (!terminal) throw new Error('tmux is not installed');
  return terminal;
}

describe.skipIf(!hasTmux)(
  skippedUnless('a person at a terminal', hasTmux, missing('tmux')),
  { concurrent: true },
  () => {
    it('bare taskctl is a short overview at 80 columns', async () => {
      const result = await term().screenOf(80, [], world.env);
      const text = result.screen.slice(0, result.screen.indexOf('EXIT=0'));
      expect(text.trimEnd().split('\n').length).toBeLessThanOrEqual(25);
      expect(text).toMatch(/^ {2}create +create a task$/m);
      expectClean(result, 80);
      fixture('overview-80', text);
    });

    it('an unreachable address shows a spinner naming the wait and each attempt again, then the error', async () => {
      const running = term().start(
        80,
        ['balance'],
        { ...world.env, TASKCTL_BASE_URL: 'http://127.0.0.1:9/api/v1' },
        24,
      );
      try {
        // Why, in words: never the code (ECONNREFUSED), which only --verbose traces.
        const spinning = await running.until(
          /reading the balance: connection refused; trying again in [\d.]+s \(attempt [2-4]\/4\)/,
        );
        expect(spinning).not.toMatch(/ECONNREFUSED/);
        expect(spinning).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] reading the balance/m);
        const end = await running.exited();
        expect(end).toMatch(/EXIT=8/);
        // The spinner is gone: only the error and its hint remain.
        expect(end).not.toMatch(/trying again in/);
        expect(end).toMatch(/^error: reading the balance: could not reach/m);
      } finally {
        await running.close();
      }
    });

    it('a 20-task wait redraws its block in place, within the width: the scrollback stays empty', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 20; i++) {
        const response = await fetch(`${world.sandbox.url}/tasks`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': world.sandbox.apiKey },
          body: JSON.stringify({
            service: 'domain_check_availability',
            items: [`a${i}.com`, `b${i}.com`, `slow-c${i}.com`],
          }),
        });
        ids.push(((await response.json()) as { data: { id: number } }).data.id);
      }
      const result = await term().screenOf(80, ['wait', ...ids.map(String), '--no-results', '-q'], world.env, 24);
      expect(result.screen).toMatch(/EXIT=0/);
      // Before the fix every redraw from the top-left corner pushed a whole frame into the scrollback.
      expect(result.history).toBe(0);
      expectClean(result, 80);
    });

    // Its own sandbox process (the one to stop), beside the tests above.
    it('a service stopped mid-wait (SIGSTOP): says so with the time since its last answer, keeps the counts it reported, and shows no estimate', async () => {
      const home = isolatedHome({ codeCache: suiteCodeCache() });
      const sandbox = spawn(
        process.execPath,
        [BIN, 'sandbox', '--port', '0', '--item-ms', '150', '--rate-limit', '0'],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, ...home.env },
        },
      );
      try {
        await stoppedMidWait(sandbox, home.env);
      } finally {
        sandbox.kill('SIGCONT');
        sandbox.kill('SIGKILL');
        if (sandbox.exitCode === null && sandbox.signalCode === null) await once(sandbox, 'exit');
        home.cleanup();
      }
    }, 60_000);
  },
);

/** The SIGSTOP test's body: `sandbox` is a `taskctl sandbox` process just spawned. */
async function stoppedMidWait(sandbox: ChildProcess, homeEnv: Record<string, string>): Promise<void> {
  let said = '';
  const url = await new Promise<string>((resolve, reject) => {
    sandbox.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      const listening = /sandbox listening on (\S+) /.exec(said);
      if (listening) resolve(listening[1]!);
    });
    sandbox.on('exit', () => reject(new Error(`the sandbox did not start: ${said}`)));
  });
  // The create's own requests (the services, the POST) are not retried past --request-timeout: a first call of each
  // warms the sandbox's paths.
  const headers = { 'content-type': 'application/json', 'x-api-key': 'sk_sandbox_0000' };
  expect((await fetch(`${url}/services`, { headers })).status).toBe(200);
  const body = JSON.stringify({ service: 'domain_check_availability', items: ['warm.com'] });
  expect((await fetch(`${url}/tasks`, { method: 'POST', headers, body })).status).toBe(201);
  const items = Array.from({ length: 30 }, (_, i) => `d${i}.com`);
  const env = { ...homeEnv, TASKCTL_BASE_URL: url, TASKCTL_API_KEY: 'sk_sandbox_0000' };
  // The task is created by the command itself, so its items' time is not spent while taskctl starts: 30 × 150 ms
  // leave the test room to see it processing and stop the sandbox before it ends, and little to wait once it goes on.
  const args = ['create', 'domain_check_availability', ...items, '--yes', '--wait', '--request-timeout', '1s'];
  const running = term().start(80, args, env, 24);
  try {
    await running.until(/processing .* [1-9]\d*\/30/);
    sandbox.kill('SIGSTOP');
    // The whole head line and the reason's first line below it: a screen read while tmux is still drawing a frame
    // holds the head over the end of the row it replaces (`! polling, last answer 1s ago░░░ 3%  1/30`).
    const stopped = await running.until(
      /^! polling, last answer \d+(\.\d)?s ago( \(giving up in \S+\))?\n {2}reading task \d+: /m,
      20_000,
    );
    const line = stopped.split('\n').find((text) => /task \d+ processing/.test(text)) ?? '';
    const [, percent, done] = /(\d+)% +(\d+)\/30/.exec(line) ?? [];
    // The percent is the reported count's, not an extrapolation; no rate or time left while nothing is known.
    expect(Number(percent)).toBe(Math.floor((100 * Number(done)) / 30));
    expect(line).not.toMatch(/est\.|\/s/);
    // The head says how long nothing came and when the wait gives up; the reason, on the lines below, wraps within the
    // line budget.
    const lines = stopped.split('\n');
    const at = lines.findIndex((text) => text.startsWith('! polling'));
    expect(lines[at]).toMatch(/^! polling, last answer \d+(\.\d)?s ago( \(giving up in \S+\))?$/);
    const why = lines[at + 1] ?? '';
    expect(why).toMatch(/^ {2}reading task \d+: http:\/\/127\.0\.0\.1:\d+ did not answer/);
    expect(textWidth(why)).toBeLessThanOrEqual(79);
    fixture('sigstop-80', stopped);
    sandbox.kill('SIGCONT');
    // The 30 results are taller than the screen: they open in less (-FRX), which q closes.
    if (hasLess) {
      const paged = await running.until(/^TARGET +STATUS +AVAILABLE[\s\S]*^:$/m, 30_000);
      expect(paged).toMatch(/^d0\.com +completed/m);
      await running.keys('q');
    }
    const end = await running.exited(30_000);
    expect(end).toMatch(/EXIT=0/);
  } finally {
    await running.close();
  }
}

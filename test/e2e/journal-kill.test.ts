/**
 * A journaled create killed with SIGKILL while it waits for the rate limit (a sandbox with a small budget and a short
 * window): the POST it waited to send never left, so the journal has no send record for it, and resume sends the
 * chunk at once, without checking the task list for it; every item ends in exactly one task. The kills are the
 * subject, so the create is the real bin; each resume runs `main()` in this process on the sandbox's clock, whose
 * sleeps then pass at once (a rate-limit wait, the settle schedule), so it costs no real time.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BIN, postsReceived, startWorld, waitFor, type E2EWorld } from './spawn-cli.js';
import { RealThenVirtualClock } from './real-then-virtual-clock.js';

const S = 'domain_check_availability';
const WINDOW_MS = 4000;
let world: E2EWorld | undefined;
afterEach(async () => {
  await world?.close();
});

interface Row {
  type: string;
  chunk?: number;
  task?: number;
}
const records = (file: string): Row[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Row);

/**
 * The sandbox's time: real time shifted, at `windowStart()`, so that a rate-limit window begins then (instead of
 * waiting for the wall clock to reach one), so the run's first wait is long enough for the kill to land in. After the
 * kill (`clock.virtual()`), the in-process resume's sleeps pass at once and the sandbox sees them pass.
 */
let clock = new RealThenVirtualClock();
const windowStart = () => clock.shift(WINDOW_MS - (clock.now() % WINDOW_MS));
beforeEach(() => {
  clock = new RealThenVirtualClock();
});

it('SIGKILL during a rate-limit wait: resume sends without a scan, and every item is in exactly one task', async () => {
  // Two requests a window: the price and the first chunk's snapshot; the first POST waits for the next window.
  world = await startWorld({ itemMs: 0, rateLimit: 2, rateWindowMs: WINDOW_MS, clock });
  const input = join(world.home.dir, 'in.txt');
  writeFileSync(input, 'k0.example.com\nk1.example.com\n');
  const journal = join(world.home.dir, 'job.jsonl');
  windowStart();
  const child = spawn(process.execPath, [BIN, 'create', S, '-f', input, '--chunk-size', '1', '--journal', journal], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...world.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const waiting = new Promise<void>((resolve) => {
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      if (/waiting \S+ for the rate limit|for \d+ requests/.test(stderr)) resolve();
    });
  });
  const closed = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
  await Promise.race([waiting, closed]);
  child.kill('SIGKILL');
  expect(await closed, stderr).toBe('SIGKILL');
  // Killed while waiting: no chunk is recorded as leaving without its task.
  const atKill = records(journal);
  const sent = atKill.filter((r) => r.type === 'send').map((r) => r.chunk);
  const created = atKill.filter((r) => r.type === 'created').map((r) => r.chunk);
  expect(sent).toEqual(created);

  clock.virtual();
  const resumed = await world.inProcess(['resume', journal], { clock });
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toMatch(/job j-[0-9a-z]+: \d of 2 chunks done, none in doubt; next: send/);
  expect(resumed.stderr).not.toMatch(/checking the task list/);
  expect(records(journal).filter((r) => r.type === 'reconciled')).toEqual([]);

  // Two chunks of one item each: two tasks of one item, each the task of one chunk, and nothing else.
  const state = await world.admin<{ tasks: Array<{ id: number; total_items: number }> }>('GET', '/__sandbox/state');
  expect(state.tasks.map((task) => task.total_items)).toEqual([1, 1]);
  const chunks = records(journal).filter((r) => r.type === 'created');
  expect(chunks.map((r) => r.chunk).sort()).toEqual([1, 2]);
  expect(new Set(chunks.map((r) => r.task))).toEqual(new Set(state.tasks.map((task) => task.id)));
}, 90_000);

it('SIGKILL while a POST is out, the task landing after: resume adopts it within seconds, not after two minutes', async () => {
  const w = await startWorld({ itemMs: 0, clock });
  world = w;
  const input = join(w.home.dir, 'in.txt');
  writeFileSync(input, 'p0.example.com\np1.example.com\n');
  const journal = join(world.home.dir, 'job.jsonl');
  // The first POST is held 1.5 s by the service (which still creates its task: a body read before the wait).
  await world.admin('POST', '/__sandbox/faults', {
    method: 'POST',
    path: '/tasks',
    kind: 'delay',
    delayMs: 1500,
    count: 1,
  });
  const child = spawn(process.execPath, [BIN, 'create', S, '-f', input, '--chunk-size', '1', '--journal', journal], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...world.env },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const closed = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
  const sendRecorded = () => existsSync(journal) && readFileSync(journal, 'utf8').includes('"type":"send"');
  await waitFor(sendRecorded, { timeoutMs: 20_000, describe: () => 'no send record in the journal' });
  // The send record is written as the request leaves: kill once the service has it (on a busy machine the kill could
  // otherwise come before the bytes are out, and nothing would land).
  await waitFor(async () => (await postsReceived(w)) >= 1, { describe: () => 'the service never saw the POST' });
  child.kill('SIGKILL');
  expect(await closed).toBe('SIGKILL');
  // The held request lands: its task is in the list before resume starts.
  let tasks: Array<{ id: number }> = [];
  await waitFor(
    async () => {
      tasks = (await w.admin<{ tasks: Array<{ id: number }> }>('GET', '/__sandbox/state')).tasks;
      return tasks.length > 0;
    },
    { describe: () => 'the held POST never landed' },
  );
  expect(tasks).toHaveLength(1);

  clock.virtual();
  const started = clock.now();
  const resumed = await world.inProcess(['resume', journal], { clock });
  // Real time and the time its sleeps skipped.
  const took = clock.now() - started;
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(`chunk 1: task ${tasks[0]?.id} was created by the interrupted request`);
  // The 10 s schedule of the exactly-once rule and a start-up, not the 60 s deadline and its minute of horizon.
  expect(took).toBeLessThan(30_000);
  const after = await world.admin<{ tasks: Array<{ total_items: number }> }>('GET', '/__sandbox/state');
  expect(after.tasks.map((task) => task.total_items)).toEqual([1, 1]);
}, 90_000);

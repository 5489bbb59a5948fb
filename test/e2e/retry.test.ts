/**
 * `taskctl retry` against a sandbox: it creates exactly the items that did not complete, and a
 * second run reuses that task (task count +1 only); Ctrl-C during a POST prints one command, which run verbatim puts
 * every item in exactly one task. The sandbox's clock is moved on by hand to end tasks (items take a minute each), so
 * nothing here depends on real processing times. The first retry is the bin; every other command runs `main()` in
 * this process on the sandbox's clock, Ctrl-C included (an abort, as the bin's first SIGINT is): their subject is what
 * is created and printed, not the process.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ctrlC, postsReceived, startWorld, waitFor, type E2EWorld } from './spawn-cli.js';
import { RealThenVirtualClock } from './real-then-virtual-clock.js';

const S = 'domain_check_availability';
let world: E2EWorld;
let clock: RealThenVirtualClock;
const here = (args: string[], signal?: AbortSignal) => world.inProcess(args, { clock, signal });
beforeEach(async () => {
  clock = new RealThenVirtualClock();
  world = await startWorld({ itemMs: 60_000, clock });
});
afterEach(() => world.close());

interface SandboxState {
  tasks: Array<{ id: number }>;
}
const state = () => world.admin<SandboxState>('GET', '/__sandbox/state');
async function targets(id: number): Promise<string[]> {
  const response = await fetch(`${world.sandbox.url}/tasks/${id}`, { headers: { 'X-API-Key': world.sandbox.apiKey } });
  return ((await response.json()) as { data: { items: Array<{ target: string }> } }).data.items.map((i) => i.target);
}

describe('retry against the sandbox', () => {
  it('creates exactly the failed items; a second retry reuses that task; nothing to retry is exit 0', async () => {
    const original = await here(['create', S, 'ok.com', 'fail-a.com', 'fail-b.com', '-q']);
    expect(original.code, original.stderr).toBe(0);
    clock.shift(10 * 60_000); // the original task ends: ok.com completed, the two fail- items failed

    // The bin, once: every command family keeps one spawned run (test/README.md#e2e-in-process-or-spawned).
    const first = await world.run(['retry', original.stdout.trim(), '-q']);
    expect(first.code, first.stderr).toBe(0);
    const retried = Number(first.stdout.trim());
    expect(await targets(retried)).toEqual(['fail-a.com', 'fail-b.com']);

    const again = await here(['retry', original.stdout.trim()]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`reused task ${retried} for 2 items (no coins spent)`);
    expect((await state()).tasks).toHaveLength(2);

    const done = await here(['create', S, 'ok.org', '-q']);
    clock.shift(10 * 60_000);
    const nothing = await here(['retry', done.stdout.trim()]);
    expect(nothing.code).toBe(0);
    expect(nothing.stderr).toContain(`nothing to retry: every item of task ${done.stdout.trim()} completed`);
    expect((await state()).tasks).toHaveLength(3);
  }, 30_000);

  it('Ctrl-C during a POST: one next step, `taskctl resume ID`; run verbatim, every item is in exactly one task', async () => {
    const failed = Array.from({ length: 6 }, (_, i) => `fail-${i}.com`);
    const original = await here(['create', S, 'ok.com', ...failed, '-q']);
    expect(original.code, original.stderr).toBe(0);
    clock.shift(10 * 60_000);
    await world.admin('POST', '/__sandbox/faults', {
      method: 'POST',
      path: '/tasks',
      kind: 'delay',
      delayMs: 700,
      count: 100,
    });
    // Ctrl-C in this process, as the bin's first SIGINT aborts a command (its exit 130 as a process: create.test.ts and
    // signals.test.ts); the subject is what the interrupted retry says and leaves.
    const controller = new AbortController();
    const run = here(['retry', original.stdout.trim(), '--chunk-size', '2', '-y', '-q'], controller.signal);
    // Ctrl-C once the sandbox holds the second chunk's POST (the original's, then the retry's two): it is in doubt.
    await waitFor(async () => (await postsReceived(world)) === 3, {
      timeoutMs: 20_000,
      describe: async () => `${await postsReceived(world)} POSTs received`,
    });
    controller.abort(ctrlC());
    const stopped = await run;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stdout.trim().split('\n')).toHaveLength(1);
    const next = stopped.stderr.trim().split('\n').at(-1) ?? '';
    expect(next).toMatch(/^Continue it with: taskctl resume j-[0-9a-z]+ --yes$/);
    expect(stopped.stderr).not.toMatch(/taskctl retry|re-run|reuse-window|same command/i);
    await world.admin('DELETE', '/__sandbox/faults');

    // The printed command, in this process on the sandbox's clock, once the held POST has landed (700 ms after it was
    // sent): the resume's check of the task list for it (13 s to its horizon in real time) then passes at once. A POST
    // landing after that check, which took no time, would be a duplicate no real run makes.
    await waitFor(async () => (await state()).tasks.length === 3, {
      timeoutMs: 20_000,
      describe: async () => `${(await state()).tasks.length} tasks held`,
    });
    clock.virtual();
    const resumed = await here(next.replace(/^Continue it with: taskctl /, '').split(' '));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/chunk 2: task \d+ was created by the interrupted request/);
    const { tasks } = await state();
    const retried = await Promise.all(tasks.slice(1).map(({ id }) => targets(id)));
    expect(retried.flat().sort()).toEqual(failed);
  }, 60_000);
});

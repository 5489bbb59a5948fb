/**
 * create's exactly-once where the cut is a real timer: the request timeout of the POST and the 1 s budget of the task
 * list read before it are plain timers in the client (test/README.md#not-covered-and-why), so these cases take real
 * time and live in this tier rather than with create's other cases (test/unit/commands/create/exactly-once.test.ts,
 * on the fake clock). In process against an in-process sandbox sharing a SkipClock (test/campaign/world.ts).
 */
import { describe, expect, it } from 'vitest';
import { startWorld, type World } from '../campaign/world.js';
import { waitFor } from '../wait-for.js';

const S = 'domain_check_availability';

const idsOf = (tasks: Array<{ id: number }>) => tasks.map((t) => t.id).sort((a, b) => a - b);

// Concurrent: each case waits seconds on real timers against a world of its own.
describe('create against a server that does not answer in time', { concurrent: true }, () => {
  it('a second create whose POST was answered late recovers its own task, never the earlier one', async ({
    onTestFinished,
  }) => {
    // The request timeout (2 s: the reads before the POST must fit in it on a loaded machine) and the POST's delay (3 s)
    // act in real time; the reconciliation's sleeps run 5× faster on the clock shared with the sandbox, so its 10 s
    // window ends 2 s real after the failure: the late task lands 1 s after it (the sandbox's timer expires before the
    // last scan's sleep does, however busy the process).
    const w = await startWorld({ scale: 5 });
    onTestFinished(() => w.close());
    const first = await w.run(['create', S, 'a.com', 'b.com', '-q']);
    await w.fault({ method: 'POST', path: '/tasks', kind: 'delay', delayMs: 3000 });
    const second = await w.run(['--request-timeout', '2s', 'create', S, 'a.com', 'b.com', '-q']);
    expect(second.stderr).toMatch(/may have created a task \(no complete answer within the request timeout\)/);
    // The delayed POST lands whatever the client concluded: polled for (a loaded machine may take longer), not timed.
    let seen: Awaited<ReturnType<World['tasks']>> = [];
    const tasks = await waitFor(async () => ((seen = await w.tasks()), seen.length >= 2 && seen), {
      describe: () => `tasks ${JSON.stringify(seen.map((t) => ({ id: t.id, status: t.status })))}`,
    });
    expect(tasks).toHaveLength(2);
    const created = tasks.find((t) => String(t.id) !== first.stdout.trim())!;
    expect(second.code).toBe(0);
    expect(second.stdout.trim()).toBe(String(created.id));
    expect(second.stderr).toMatch(new RegExp(`recovered: task ${created.id}`));
  });

  it('a task list that does not answer is cut at the 1 s budget of the snapshot, then the create goes ahead', async ({
    onTestFinished,
  }) => {
    // Virtual time for the client's sleeps; the list's 8 s delay and the snapshot's 1 s budget are real.
    const w = await startWorld({ scale: Infinity });
    onTestFinished(() => w.close());
    await w.fault({ method: 'GET', path: '/tasks', kind: 'delay', delayMs: 8000, count: 2 });
    const result = await w.run(['create', S, 'a.com', '-q', '--verbose']);
    expect(result.code).toBe(0);
    // What it did, not how long it took: the one list read is cut at the snapshot's budget (the deadline, not the
    // request timeout), no second read is sent past that budget, and the POST follows.
    const lines = result.stderr.split('\n');
    expect(lines.filter((line) => /^> GET \S+\/tasks\?/.test(line))).toHaveLength(1);
    const cut = lines.findIndex((line) => line.startsWith('! GET /tasks failed: TASKCTL_DEADLINE '));
    expect(cut).toBeGreaterThan(0);
    expect(lines.findIndex((line) => /^> POST \S+\/tasks$/.test(line))).toBeGreaterThan(cut);
    expect(idsOf(await w.tasks())).toEqual([Number(result.stdout)]);
  });
});

/**
 * The other runs of this machine as a reconciliation sees them: a run whose create was answered with a failure is a
 * possible creator of a matching task up to its window's loose end, so a Date clock behind the clock stamping tasks
 * never hands that run's task to another run (docs/behaviour.md#the-window).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Task } from '../../../../src/api/schemas.js';
import { LocalCreates } from '../../../../src/core/submit/local-runs.js';
import { ServerClock } from '../../../../src/core/server-time.js';
import { FakeClock, T0 } from '../../../clock.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'taskctl-local-runs-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function open(warnings: string[] = []): Promise<LocalCreates> {
  const env = { TASKCTL_CACHE_DIR: join(dir, 'cache'), TASKCTL_STATE_DIR: join(dir, 'state') };
  const ctx = {
    printer: { warn: (text: string) => warnings.push(text) },
    clock: new FakeClock(T0 + 100),
    env,
    cache: { account: 'account-1' },
  };
  return LocalCreates.open(ctx as unknown as Parameters<typeof LocalCreates.open>[0], 600_000, 62_000);
}

const stamped = (id: number, at: number): Task => ({
  id,
  service: 'svc',
  status: 'pending',
  total_items: 1,
  cost: 1,
  created_at: new Date(at).toISOString(),
  completed_at: null,
});

describe('LocalCreates.runs: another run answered with a failure', () => {
  it('a Date clock 5 s behind: its task, stamped after its answer as Date reads it, is contested, never claimed', async () => {
    const a = await open();
    const mine = await open();
    // Run A: sent at T0, answered 502 at T0 + 50 (its window closed then, as its Date headers read the time).
    const entryA = a.begin('svc', ['a.com'], undefined, T0);
    a.unknown(entryA, T0 + 50);
    const entry = mine.begin('svc', ['a.com'], undefined, T0 + 10);
    const clock = new ServerClock();
    clock.learn({ low: -5100, high: -4000 });
    const runs = mine.runs(entry, clock);
    // A's own task, stamped at T0 + 20 by the clock 5 s ahead of the Date's.
    expect(runs?.claim(stamped(1, T0 + 20))).toMatchObject({ ok: false, reason: 'contested' });
    // Minutes past A's answer, even as the Date reads it: not A's.
    expect(runs?.claim(stamped(2, T0 + 200_000))).toEqual({ ok: true });
  });
});

describe('LocalCreates.runs: a ledger that cannot be used when the task is claimed', () => {
  it('the claim is not refused, and says that the other runs were not looked at', async () => {
    const warnings: string[] = [];
    const mine = await open(warnings);
    const entry = mine.begin('svc', ['a.com'], undefined, T0);
    expect(entry).toBeDefined();
    const runs = mine.runs(entry, new ServerClock());
    // The cache directory is gone, and a file stands in its place: the ledger's lock cannot be made.
    rmSync(join(dir, 'cache'), { recursive: true, force: true });
    writeFileSync(join(dir, 'cache'), 'x');
    expect(runs?.claim(stamped(1, T0 + 20))).toEqual({ ok: true, unchecked: true });
    expect(warnings).toEqual([expect.stringContaining('the local ledger of creates cannot be used')]);
  });
});

describe('LocalCreates.runs: who else may have made the task, in words (describe)', () => {
  const sent = new Date(T0).toISOString();
  const contested = async (other: (a: LocalCreates) => void) => {
    const a = await open();
    const mine = await open();
    other(a);
    const entry = mine.begin('svc', ['a.com'], undefined, T0 + 10);
    return mine.runs(entry, new ServerClock())?.claim(stamped(1, T0 + 20));
  };

  it('a run still sending, this process: names where, its process and when it sent', async () => {
    const claim = await contested((a) => a.begin('svc', ['a.com'], undefined, T0));
    expect(claim).toEqual({
      ok: false,
      reason: 'contested',
      by: `another taskctl run on this machine (process ${process.pid}, sent ${sent}) still sending`,
    });
  });

  it('a run whose request went unanswered: it could not tell whether it created a task', async () => {
    const claim = await contested((a) => a.unknown(a.begin('svc', ['a.com'], undefined, T0), T0 + 50));
    expect(claim).toMatchObject({
      ok: false,
      by: `another taskctl run on this machine (process ${process.pid}, sent ${sent}) could not tell whether its request created a task`,
    });
  });

  it("a stopped job's run (its lock free): may have created it, and the resume that settles it names the job", async () => {
    const job = 'j-stopped1';
    const claim = await contested((a) => a.begin('svc', ['a.com'], { journal: job, chunk: 2 }, T0));
    expect(claim).toMatchObject({
      ok: false,
      by: `a taskctl run on this machine that has stopped (process ${process.pid}, sent ${sent}) may have created it (taskctl resume ${job} settles it)`,
    });
  });
});

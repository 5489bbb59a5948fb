/**
 * The two overlap cases of test/README.md (case 1 and case 2), in process: two runs of the same create on one machine (one cache directory, so one local
 * ledger) or on two, each through its own proxy, on a clock shared with the sandbox whose sleeps are 5× shorter: the
 * 10 s reconciliation takes 2 s real, and a POST held 2 s (past the 1.5 s request timeout, which the reads before the
 * POST must fit in on a loaded machine: 0.4 s did not) lands 0.5 s into it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FaultProxy, type ProxyFault } from './proxy.js';
import { startWorld, type World } from './world.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(faults: ProxyFault[], shared: boolean) {
  const world: World = await startWorld({ scale: 5 });
  cleanups.push(() => world.close());
  const homes = faults.map((_, i) => (shared && i > 0 ? undefined : mkdtempSync(join(tmpdir(), 'taskctl-cases-'))));
  for (const home of homes) if (home) cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const proxies = faults.map((fault) => new FaultProxy(world.sandbox.origin, fault, 2000));
  for (const proxy of proxies) {
    await proxy.start();
    cleanups.push(() => proxy.close());
  }
  const argv = ['--request-timeout', '1500ms', 'create', 'domain_check_availability', 'a.com', 'b.com', '-q'];
  const run = (i: number) => world.run(argv, { dispatcher: proxies[i]!.agent, home: homes[shared ? 0 : i] });
  return { world, proxies, run };
}

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('overlapping identical creates on one machine', () => {
  it('case 1: A answered 502 (never forwarded), B creates 3 s later: A exit 9 (nothing of its own), B prints its task', async () => {
    const { proxies, run, world } = await setup(['502', 'none'], true);
    const a = run(0);
    // 3 s on the shared clock: A's reconciliation has begun (its sleeps move the clock 5× faster).
    const started = world.clock.now();
    while (world.clock.now() < started + 3000) await later(5);
    const b = await run(1);
    const resultA = await a;
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout.trim()).toBe(String(proxies[1]!.created[0]));
    expect(resultA.code, resultA.stderr).toBe(9);
    expect(resultA.stderr).toMatch(/no matching task of this request was found/);
    expect(proxies[0]!.created).toEqual([]);
  });

  it('case 2: A held past its timeout, B identical meanwhile: with the ledger A reports its own late task', async () => {
    const { proxies, run } = await setup(['delay', 'none'], true);
    const a = run(0);
    await later(100);
    const b = await run(1);
    const resultA = await a;
    await Promise.all(proxies.map((p) => p.settle()));
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout.trim()).toBe(String(proxies[1]!.created[0]));
    expect(proxies[0]!.created).toHaveLength(1);
    // B's task is B's (the ledger says so): A's own late task is the only candidate left.
    expect(resultA.code, resultA.stderr).toBe(0);
    expect(resultA.stdout.trim()).toBe(String(proxies[0]!.created[0]));
    expect(resultA.stderr).toMatch(/recovered: task \d+ was created by this request/);
  });

  it('case 2 on two machines (no shared ledger): A cannot tell the two apart and says so (exit 9, both ids)', async () => {
    const { proxies, run } = await setup(['delay', 'none'], false);
    const a = run(0);
    await later(100);
    const b = await run(1);
    const resultA = await a;
    await Promise.all(proxies.map((p) => p.settle()));
    expect(b.code).toBe(0);
    expect(resultA.code, resultA.stderr).toBe(9);
    const ids = [...proxies[0]!.created, ...proxies[1]!.created].sort((x, y) => x - y);
    expect(ids).toHaveLength(2);
    expect(resultA.stderr).toContain(`several matching tasks were created`);
    expect(resultA.stderr).toContain(`(${ids.join(', ')})`);
    // Every create is a job: its one next step names the candidates to look at and the resume that settles the chunk.
    expect(resultA.stderr).toContain(
      `Look at them (taskctl show ${ids.join(' ')}), then, for the one that is this chunk's: taskctl resume j-`,
    );
    expect(resultA.stderr).toMatch(
      /taskctl resume j-[0-9a-z]+ --adopt 1=ID\nor, if none is this chunk's: taskctl resume j-[0-9a-z]+ --resend 1\n$/,
    );
  });
});

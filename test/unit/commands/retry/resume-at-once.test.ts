/**
 * A `retry --job` stopped part-way (its stdout closed after its second task), then its printed `taskctl resume J --yes`
 * and the same `retry` again started at the same moment: the re-run finds that job held by the live resume, so it waits
 * for that run to end, then takes the job (continues it, or takes its tasks once it has finished) instead of buying
 * its chunks again; each item is bought once by the two runs together (core/submit/same-work.ts).
 *
 * The overlap is made deterministic: the resume's POST is held on the wire (a Gate), so the re-run starts while that
 * request is out and the job's lock held, on a fake clock whose sleeps wait for the test (`auto: false`), so the re-run
 * is seen asleep in its wait before the POST is let through.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FakeClock, settle } from '../../../clock.js';
import type { MemoryOutputStream } from '../../../../src/output/memory-io.js';
import { Gate } from '../gate.js';
import type { RunResult } from '../run-in-process.js';
import { startSandboxWorld, withClosedStdout, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
const FAILING = Array.from({ length: 6 }, (_, i) => `fail-${i + 1}.at-once.com`);
let world: World;
let dir: string;
let agent: Agent;

beforeEach(async () => {
  world = await startSandboxWorld({ clock: new FakeClock({ auto: false }) });
  dir = mkdtempSync(join(tmpdir(), 'taskctl-resume-at-once-'));
  agent = new Agent();
});
afterEach(async () => {
  await agent.close();
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `promise` settled, the clock's sleepers (the runs' waits) fired in time order meanwhile. */
async function driven<T>(promise: Promise<T>): Promise<T> {
  const at = { done: false };
  void promise.finally(() => (at.done = true)).catch(() => undefined);
  while (!at.done) {
    await world.clock.runUntilIdle();
    await settle();
  }
  return promise;
}

interface Started {
  result: Promise<RunResult>;
  stderr: () => string;
  ended: () => boolean;
}

/** `argv` started in `dir`, its stderr readable while it runs. */
function started(argv: string[], options: { signal?: AbortSignal; dispatcher?: Gate } = {}): Started {
  let stderr: MemoryOutputStream | undefined;
  let ended = false;
  const result = world.run(argv, { home: dir, ...options, terminal: (streams) => (stderr = streams.stderr) });
  void result.finally(() => (ended = true)).catch(() => undefined);
  return { result, stderr: () => stderr?.text() ?? '', ended: () => ended };
}

/** `run` let go on, the clock still, until it sleeps (its wait) or ends. */
async function untilAsleep(run: Started): Promise<void> {
  while (world.clock.pendingTimers === 0 && !run.ended()) await settle();
}

/**
 * A `retry --job` of six failing items in three chunks stopped after its second task (its stdout closed), then its
 * printed resume started with its POST (chunk 3) held on the wire: the stopped job, the retry's argv, the POSTs the
 * sandbox has had, the resume under way and its POST's release.
 */
async function resumeUnderWay(signal?: AbortSignal) {
  const create = ['create', S, ...FAILING, '--chunk-size', '2', '-y', '-q', '--wait'];
  const created = await driven(world.run(create, { home: dir }));
  expect(created.code, created.stderr).toBe(11);
  const job = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(created.stderr)?.[1] ?? '';
  const retry = ['retry', '--job', job, '-y'];
  const first = await driven(withClosedStdout(world, [...retry, '-q'], dir, 1));
  expect(first.code, first.stderr).toBe(14);
  expect(first.stderr).toContain('created 2 of 3 tasks');
  const stopped = /Continue it with: taskctl resume (j-[0-9a-z]+) --yes$/m.exec(first.stderr)?.[1] ?? '';
  expect(stopped).not.toBe('');
  const gate = new Gate(agent);
  let release: (() => void) | undefined;
  gate.events.on('held', () => {
    for (const request of [...gate.held])
      if (request.method === 'POST' && release === undefined) release = request.release;
      else if (request.release !== release) request.release();
  });
  const resume = started(['resume', stopped, '--yes'], { dispatcher: gate, ...(signal && { signal }) });
  while (release === undefined && !resume.ended()) {
    await world.clock.runUntilIdle();
    await settle();
  }
  const posts = await world.posts();
  return { stopped, retry, posts, resume, release: () => release?.() };
}

/** Each failing item in the create's task and in one task of the retry's job: bought once by the two runs. */
async function eachItemTwice(): Promise<void> {
  const counts = await world.itemCounts();
  for (const item of FAILING) expect(counts.get(item), item).toBe(2);
}

const waiting = (id: string) =>
  new RegExp(
    `^job ${id}, started \\S+, holds the same items in the same chunks, and another taskctl run \\(process \\d+ on this machine\\) is running it: waiting for that run to end, to take that job instead of buying its items again$`,
    'm',
  );

it('the printed resume and the same retry at once: the retry waits for the resume, then takes its finished job', async () => {
  const { stopped, retry, posts, resume, release } = await resumeUnderWay();
  const again = started([...retry, '-q']);
  await untilAsleep(again);
  release();
  const [resumed, rerun] = await driven(Promise.all([resume.result, again.result]));
  expect(await world.posts()).toBe(posts + 1); // the resume's chunk 3
  await eachItemTwice();
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stdout).toMatch(/^6\s/); // chunk 3's task, the one the resume created
  expect(rerun.code, rerun.stderr).toBe(0);
  expect(rerun.stderr).toMatch(waiting(stopped));
  expect(rerun.stderr).toContain(
    `job ${stopped}, started 2025-01-15T12:00:00Z, was finished by the run waited for: the same items in the same chunks, so its tasks are this run's and nothing is bought again (taskctl wait --job ${stopped} waits for them)`,
  );
  // It gave no chunk a task, yet the job's three tasks hold its items: their ids on stdout, as a reused task's would
  // be (-q: no summary).
  expect(rerun.stdout).toBe('4\n5\n6\n');
  expect(rerun.stderr).not.toMatch(/^job j-[0-9a-z]+: taskctl jobs$/m);
  // `retry -q | taskctl wait -`: waits for those tasks, whose items failed again (exit 11), never "nothing to wait for".
  const waited = await driven(world.run(['wait', '-'], { home: dir, stdin: rerun.stdout }));
  expect(waited.code, waited.stderr).toBe(11);
  expect(waited.stderr).not.toContain('nothing to wait for');
  expect(
    waited.stdout
      .split('\n')
      .filter((line) => /^\d+\s/.test(line))
      .map((line) => line.split(/\s/)[0]),
  ).toEqual(['4', '5', '6']);
});

it('the resume stopped by Ctrl-C while the retry waits for it: the retry continues the job, its chunk in doubt settled', async () => {
  const controller = new AbortController();
  const { stopped, retry, posts, resume, release } = await resumeUnderWay(controller.signal);
  const again = started(retry);
  await untilAsleep(again);
  expect(again.stderr()).toMatch(waiting(stopped));
  controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError' }));
  release();
  const [resumed, rerun] = await driven(Promise.all([resume.result, again.result]));
  expect(resumed.code, resumed.stderr).toBe(130);
  expect(rerun.code, rerun.stderr).toBe(0);
  expect(rerun.stderr).toContain(`continuing job ${stopped}, started `);
  // The resume's request, given up with its run before it left, made no task: the retry found none once it could no
  // longer land, and sent chunk 3 once.
  expect(rerun.stderr).toContain('chunk 3: no task of the interrupted request found by ');
  expect(await world.posts()).toBe(posts + 1);
  expect(await world.tasks()).toHaveLength(6);
  await eachItemTwice();
  // Every task holding its items, as rows: the job's two tasks it took, then the one it created.
  expect(
    rerun.stdout
      .split('\n')
      .filter((line) => /^\d+\t/.test(line))
      .map((line) => line.split('\t')[0]),
  ).toEqual(['4', '5', '6']);
  expect(rerun.stderr).toContain('✓ 3 tasks for 6 items, 6 coins (1 by this run)');
  const bare = await driven(world.run(['resume'], { home: dir }));
  expect(bare.stderr).toContain('no interrupted job to resume');
});

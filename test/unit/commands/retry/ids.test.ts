/** `taskctl retry` in-process against an in-process sandbox sharing one virtual clock (items take 1 s each). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import type { Clock } from '../../../../src/lib/time.js';
import { FakeClock, runTaskctl } from '../run-in-process.js';
import { Gate } from '../gate.js';
import { postTask } from '../sandbox-world.js';

type Held = Gate['held'][number];

const S = 'domain_check_availability'; // 1 coin an item
const W = 'domain_whois_history'; // 5 coins an item
let clock: FakeClock;
let sandbox: RunningSandbox;
let env: Record<string, string>;

beforeEach(async () => {
  clock = new FakeClock();
  sandbox = await startSandbox({ port: 0, itemMs: 1000, rateLimit: 0, clock, balance: 1_000_000 });
  env = { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey };
});
afterEach(() => sandbox.close());

const run = (argv: string[]) => runTaskctl(argv, { env, clock });
/** Lets every task created so far finish (virtual time). */
const finish = () => {
  clock.advance(5 * 60_000);
};
async function task(
  id: string | number,
): Promise<{ service: string; status: string; items: Array<{ target: string }> }> {
  const response = await fetch(`${sandbox.url}/tasks/${id}`, { headers: { 'X-API-Key': sandbox.apiKey } });
  return ((await response.json()) as { data: { service: string; status: string; items: Array<{ target: string }> } })
    .data;
}
async function taskCount(): Promise<number> {
  const response = await fetch(`${sandbox.url}/tasks?per_page=100`, { headers: { 'X-API-Key': sandbox.apiKey } });
  return ((await response.json()) as { data: unknown[] }).data.length;
}
/**
 * A task of `items` made straight on the sandbox, as another client would (each run here has a home of its own, so a
 * taskctl create left nothing the retry reads): its id. The subject is the retry.
 */
async function made(service: string, items: string[]): Promise<string> {
  return String(await postTask(sandbox, service, items));
}
async function created(argv: string[]): Promise<string> {
  const result = await run([...argv, '-q']);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

describe('taskctl retry', () => {
  it('creates exactly the items that did not complete; running it again reuses that task (task count +1 only)', async () => {
    const original = await made(S, ['ok.com', 'fail-a.com', 'fail-b.com']);
    finish();
    const first = await run(['retry', original, '-o', 'tsv']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/task \d+ for 2 items, 2 coins/);
    const retried = first.stdout.split('\t')[0] ?? '';
    expect((await task(retried)).items.map((i) => i.target)).toEqual(['fail-a.com', 'fail-b.com']);
    expect(await taskCount()).toBe(2);

    const again = await run(['retry', original, '-o', 'tsv']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.split('\t')[0]).toBe(retried);
    expect(again.stderr).toContain(`reused task ${retried} for 2 items (no coins spent)`);
    expect(await taskCount()).toBe(2);

    const forced = await created(['retry', original, '--no-reuse']);
    expect(forced).not.toBe(retried);
    expect(await taskCount()).toBe(3);
  });

  it('--allow-item-failures: a task whose every item failed is retried, never "reused" as its own retry', async () => {
    const original = await made(S, ['fail-a.com', 'fail-b.com']);
    finish();
    const retry = await run(['retry', original, '--allow-item-failures', '-y', '-o', 'tsv']);
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stderr).not.toContain('reused');
    const retried = retry.stdout.split('\t')[0] ?? '';
    expect(retried).not.toBe(original);
    expect(await taskCount()).toBe(2);
  });

  it('a re-run after the retry task itself ended with failed items pays again (a task that did not succeed is never reused)', async () => {
    const original = await made(S, ['ok.com', 'fail-a.com']);
    finish();
    const first = await created(['retry', original]);
    finish();
    const second = await created(['retry', original]);
    expect(second).not.toBe(first);
    expect((await task(second)).items.map((i) => i.target)).toEqual(['fail-a.com']);
  });

  const post = (request: Held) => request.method === 'POST';
  it.each([
    ['its POST is out', post, false],
    ['it is still looking for a task to reuse', (request: Held) => request.path.includes('per_page='), false],
    // The same request made at the same time: reused although it failed (a re-run after it would not reuse it).
    ['its POST is out, its task ending with failed items before the second looks', post, true],
  ])(
    'the same retry in two terminals at once, the first held while %s: the second waits for its job, then takes its task',
    async (_, hold, ended) => {
      const original = await made(S, ['ok.com', 'fail-a.com', 'fail-b.com']);
      finish();
      const home = mkdtempSync(join(tmpdir(), 'taskctl-retry-twice-'));
      const agent = new Agent();
      try {
        // The first run's request `hold` picks is held on the wire; every other request goes through.
        const gate = new Gate(agent);
        let release: (() => void) | undefined;
        const holding = new Promise<void>((resolve) =>
          gate.events.on('held', () => {
            for (const request of [...gate.held]) {
              if (release !== undefined || !hold(request)) request.release();
              else {
                release = request.release;
                resolve();
              }
            }
          }),
        );
        const first = runTaskctl(['retry', original, '-y', '-q'], { env, clock, home, dispatcher: gate });
        await holding;
        // The second run's first sleep is its wait: the first run goes on meanwhile, to its end.
        let slept = 0;
        const waiting: Clock = {
          now: () => clock.now(),
          sleep: async (ms, signal) => {
            if (slept++ === 0) {
              release?.();
              await first;
              if (ended) finish();
            }
            return clock.sleep(ms, signal);
          },
        };
        const second = await runTaskctl(['retry', original, '-y', '-q'], { env, clock: waiting, home });
        release?.();
        const one = await first;
        expect(one.code, one.stderr).toBe(0);
        expect(second.code, second.stderr).toBe(0);
        // The first run's job is the same work, held by that run: the second waits for it to end, then takes its
        // task as that job's (core/submit/same-work.ts), printing it as the first run did.
        const job = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(one.stderr)?.[1] ?? '';
        expect(second.stderr).toMatch(
          new RegExp(
            `^job ${job}, started \\S+, holds the same items in the same chunks, and another taskctl run \\(process ${process.pid} on this machine\\) is running it: waiting for that run to end`,
            'm',
          ),
        );
        expect(second.stderr).toContain(`was finished by the run waited for`);
        expect(second.stderr).toContain(`taskctl wait --job ${job}`);
        expect(one.stdout).toMatch(/^\d+\n$/);
        expect(second.stdout).toBe(one.stdout);
        expect(await taskCount()).toBe(2);
      } finally {
        await agent.close();
        rmSync(home, { recursive: true, force: true });
      }
    },
  );

  it('outside --reuse-window a retry creates a new task', async () => {
    const original = await made(S, ['fail-a.com']);
    finish();
    const first = await created(['retry', original]);
    clock.advance(2 * 60_000);
    expect(await created(['retry', original, '--reuse-window', '1m'])).not.toBe(first);
  });

  it('a task that ended without completing: its items not completed, in its order', async () => {
    const original = await made(S, ['a.com', 'taskfail-b.com', 'c.com']);
    finish();
    expect((await task(original)).status).toBe('failed');
    const retried = await created(['retry', original]);
    expect((await task(retried)).items.map((i) => i.target)).toEqual(['taskfail-b.com', 'c.com']);
  });

  it('items are sent as the server listed them, without validation or normalisation', async () => {
    const original = await made(S, ['fail-UPPER.com']);
    finish();
    const retried = await run(['retry', original, '-q']);
    expect(retried.stderr).toMatch(/^job j-[0-9a-z]+: taskctl jobs\n$/);
    expect((await task(retried.stdout.trim())).items.map((i) => i.target)).toEqual(['fail-UPPER.com']);
  });

  it('several tasks: one new task, an item failed in two tasks sent once', async () => {
    const a = await made(S, ['ok.com', 'fail-a.com']);
    const b = await made(S, ['fail-a.com', 'fail-c.com']);
    finish();
    const result = await run(['retry', a, b, a, '-q']);
    expect(result.code, result.stderr).toBe(0);
    const ids = result.stdout.trim().split('\n');
    expect(ids).toHaveLength(1);
    const tasks = await Promise.all(ids.map(task));
    expect(tasks.map((t) => [t.service, t.items.map((i) => i.target)])).toEqual([[S, ['fail-a.com', 'fail-c.com']]]);
  });

  it('nothing to retry is exit 0 with a message, and nothing is created', async () => {
    const original = await made(S, ['ok.com']);
    finish();
    const result = await run(['retry', original]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`nothing to retry: every item of task ${original} completed`);
    expect(await taskCount()).toBe(1);
    // Priced with -q alone, it costs 0: `cost=$(taskctl retry ID --dry-run -q)` reads a number, never an empty string.
    const priced = await run(['retry', original, '--dry-run', '-q']);
    expect(priced).toMatchObject({ code: 0, stdout: '0\n' });
  });

  it('a task still running is refused (exit 2) before anything is priced or sent', async () => {
    const done = await made(S, ['fail-a.com']);
    finish();
    const running = await made(S, ['fail-b.com']);
    const result = await run(['retry', done, running]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `task ${running} is still pending: its items may still complete; nothing was created`,
    );
    expect(result.stderr).toContain(`taskctl wait ${running}; taskctl retry ${done} ${running}`);
    expect(await taskCount()).toBe(2);
  });

  it('a task that does not exist is exit 5, nothing created', async () => {
    const original = await made(S, ['fail-a.com']);
    finish();
    const result = await run(['retry', original, '999']);
    expect(result.code).toBe(5);
    expect(await taskCount()).toBe(1);
  });

  it('--dry-run prices the retry and creates nothing; --max-cost refuses (exit 6)', async () => {
    const original = await made(W, ['ok.com', 'fail-a.com', 'fail-b.com']);
    finish();
    const dry = await run(['retry', original, '--dry-run', '-o', 'json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ service: W, items: 2, estimate: 10, tasks: 1 });
    const capped = await run(['retry', original, '--max-cost', '9']);
    expect(capped.code).toBe(6);
    expect(capped.stderr).toMatch(/the estimate is 10 coins, above --max-cost 9; nothing was created/);
    expect(await taskCount()).toBe(1);
  });

  it('--dry-run -o json over several services is one array, the balance after running down', async () => {
    const a = await made(S, ['fail-a.com']);
    const b = await made(W, ['fail-b.com']);
    finish();
    const dry = await run(['retry', a, b, '--dry-run', '-o', 'json']);
    expect(dry.code, dry.stderr).toBe(0);
    const [first, second] = JSON.parse(dry.stdout) as Array<Record<string, number | string>>;
    expect(first).toMatchObject({ service: S, estimate: 1 });
    expect(second).toMatchObject({ service: W, estimate: 5, balance: first?.balance });
    expect(first?.balance_after).toBe(Number(first?.balance) - 1);
    expect(second?.balance_after).toBe(Number(first?.balance) - 6);
    // Each element has the keys of a single service's object, so one parser reads both.
    const single = await run(['retry', a, '--dry-run', '-o', 'json']);
    const keys = Object.keys(JSON.parse(single.stdout) as object).sort();
    expect(Object.keys(first ?? {}).sort()).toEqual(keys);
    expect(first).toMatchObject({ normalised: 0, normalised_examples: [] });
  });

  it("--dry-run -o tsv has create's columns, normalised among them (a retry sends items as recorded: 0)", async () => {
    const original = await made(S, ['ok.com', 'fail-a.com']);
    finish();
    const retried = await run(['retry', original, '--dry-run', '-o', 'tsv']);
    const created = await run(['create', S, 'a.com', '--no-validate', '--dry-run', '-o', 'tsv']);
    for (const dry of [retried, created]) expect(dry.code, dry.stderr).toBe(0);
    const fields = (stdout: string) => stdout.trimEnd().split('\t');
    expect(fields(retried.stdout)).toHaveLength(9);
    expect(fields(retried.stdout).at(-1)).toBe('0');
    expect(fields(created.stdout)).toHaveLength(9);
  });

  it('several tasks still running are named together', async () => {
    const a = await made(S, ['fail-a.com']);
    const b = await made(S, ['fail-b.com']);
    const result = await run(['retry', a, b]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`tasks ${a}, ${b} are still pending: their items may still complete`);
  });

  it('--chunk-size splits the retry; --wait waits and exits like wait (11: items failed again)', async () => {
    const original = await made(S, ['ok.com', 'fail-a.com', 'fail-b.com', 'fail-c.com']);
    finish();
    const chunked = await run(['retry', original, '--chunk-size', '2', '-q', '--wait', '--no-reuse']);
    expect(chunked.code, chunked.stderr).toBe(11);
    expect(await taskCount()).toBe(3);
  });

  it('--no-reuse with --reuse-window is a usage error', async () => {
    const result = await run(['retry', '1', '--no-reuse', '--reuse-window', '1h']);
    expect(result.code).toBe(2);
  });
});

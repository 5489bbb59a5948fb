/**
 * `taskctl create` in-process against an in-process sandbox sharing the fake clock (../sandbox-world.ts): the
 * reconciliation's 10 s pass at once. The cases whose cut is a real timer (the request timeout, the snapshot's budget)
 * are in test/hardening/create-timeouts.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postTask, startSandboxWorld, withClosedStdout, type World } from '../sandbox-world.js';
import { ctrlCWhen } from '../../../clock.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const S = 'domain_check_availability';
let world: World;
beforeEach(async () => {
  world = await startSandboxWorld();
});
afterEach(() => world.close());

const idsOf = (tasks: Array<{ id: number }>) => tasks.map((t) => t.id).sort((a, b) => a - b);
/**
 * The earlier task of `items`, made straight on the service (each `world.run` has a home of its own, so a taskctl
 * create of it was another client's all the same): its id.
 */
const earlier = (items: string[]) => postTask(world.sandbox, S, items);

describe('exactly-once after an identical task was created moments before', () => {
  it('a second create whose POST was reset before reaching the server exits 9, never printing the earlier task', async () => {
    const first = await earlier(['a.com', 'b.com']);
    await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-before' });
    const second = await world.run(['create', S, 'a.com', 'b.com', '-q']);
    expect(second.code).toBe(9);
    expect(second.stdout).toBe('');
    expect(second.stderr).toMatch(/may have created a task/);
    // One next step, which never sends the items again: the job's resume settles the chunk by the task list.
    expect(second.stderr).toMatch(/\nContinue it with: taskctl resume j-[0-9a-z]+\n$/);
    expect(second.stderr).not.toMatch(/reuse-window|re-run/i);
    expect(idsOf(await world.tasks())).toEqual([first]);
  });

  it('a reset after the server created the task recovers the new task, not the earlier identical one', async () => {
    const first = await earlier(['a.com']);
    await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-after' });
    const second = await world.run(['create', S, 'a.com', '-q']);
    expect(second.code).toBe(0);
    const ids = idsOf(await world.tasks());
    expect(ids).toHaveLength(2);
    expect(second.stdout.trim()).toBe(String(ids.find((id) => id !== first)));
  });

  it('the list is read once before the POST (the evidence of what already existed), the balance beside it', async () => {
    const result = await world.run(['create', S, 'a.com', '-q', '--verbose']);
    const requests = result.stderr.split('\n').filter((line) => /^> (GET|POST) /.test(line));
    const paths = requests.map((line) => line.replace(/^> (\w+) \S+?\/api\/v1(\/[a-z]+).*$/, '$1 $2'));
    expect(paths[0]).toBe('GET /services');
    // Sent together (the balance costs no wait of its own), both before the POST.
    expect(paths.slice(1, 3).sort()).toEqual(['GET /balance', 'GET /tasks']);
    expect(paths.slice(3)).toEqual(['POST /tasks']);
  });
});

describe('a server whose task reads leave out the items', () => {
  it('a lost answer names the same-size task it cannot check, and resume never sends the chunk again', async () => {
    const blind = await startSandboxWorld({ dialects: ['no-items'], clock: world.clock });
    const home = mkdtempSync(join(tmpdir(), 'taskctl-blind-'));
    try {
      const { runTaskctl } = await import('../run-in-process.js');
      const run = (argv: string[]) => runTaskctl(argv, { env: blind.env, clock: blind.clock, home });
      await blind.fault({ method: 'POST', path: '/tasks', kind: 'reset-after' });
      const created = await run(['create', S, 'r1.example.com', 'r2.example.com', '-y']);
      const [task] = await blind.tasks();
      expect(created.code).toBe(9);
      expect(created.stderr).toContain(`task ${task!.id}`);
      expect(created.stderr).toMatch(/does not list its items/);
      const job = /taskctl resume (j-[0-9a-z]+)/.exec(created.stderr)?.[1];
      expect(job).toBeDefined();
      // The way to settle it at once, not a resume that can only end in the same exit 9.
      expect(created.stderr).toContain(
        `Look at it (taskctl show ${task!.id}), then, if it is this chunk's: taskctl resume ${job} --yes --adopt 1=${task!.id}\n` +
          `or, if task ${task!.id} is not this chunk's: taskctl resume ${job} --yes --resend 1\n`,
      );
      // The journal keeps the candidate the message named: a later `--resend` knows it was looked at.
      const records = readFileSync(join(home, 'state', 'jobs', `${job}.jsonl`), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; candidates?: number[] });
      expect(records.find((record) => record.type === 'unknown')?.candidates).toEqual([task!.id]);
      const resumed = await run(['resume', job!]);
      expect(resumed.code, resumed.stderr).toBe(9);
      expect(resumed.stderr).toContain(`--adopt 1=${task!.id}`);
      expect(resumed.stderr).toContain(`taskctl show ${task!.id}`);
      expect(await blind.posts()).toBe(1);
      expect(await blind.tasks()).toHaveLength(1);
    } finally {
      await blind.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('Ctrl-C keeps the message', () => {
  it('during reconciliation: exit 130, "may have been created", and the job to resume', async () => {
    await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-after' });
    await world.fault({ method: 'GET', path: '/tasks', kind: 'status', status: 503, count: 1000 });
    const controller = new AbortController();
    const { runTaskctl } = await import('../run-in-process.js');
    const result = await runTaskctl(['create', S, 'a.com', '-q'], {
      env: world.env,
      clock: ctrlCWhen(world.clock, controller, (ms) => ms >= 1500),
      signal: controller.signal,
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/interrupted while checking whether the task was created .*may have been created/);
    expect(result.stderr).toMatch(/\nContinue it with: taskctl resume j-[0-9a-z]+\n$/);
  });

  it('during a chunked create: exit 130 with the ids already created', async () => {
    const controller = new AbortController();
    const { runTaskctl } = await import('../run-in-process.js');
    // The second chunk's POST is reset (the first chunk went through); Ctrl-C while that is reconciled.
    await world.fault({ method: 'POST', path: '/tasks', kind: 'delay', delayMs: 0 });
    await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-before' });
    const result = await runTaskctl(['create', S, 'a.com', 'b.com', 'c.com', '--chunk-size', '1', '-q'], {
      env: world.env,
      clock: ctrlCWhen(world.clock, controller, (ms) => ms >= 2000),
      signal: controller.signal,
    });
    expect(result.code).toBe(130);
    const [only] = await world.tasks();
    expect(result.stdout.trim()).toBe(String(only!.id));
    expect(result.stderr).toMatch(/may have been created/);
    expect(result.stderr).toMatch(new RegExp(`created 1 of 3 tasks before that: ${only!.id}`));
  });

  it('during --reuse-window scanning: exit 130, nothing created for that chunk, earlier ids listed', async () => {
    const controller = new AbortController();
    const { runTaskctl } = await import('../run-in-process.js');
    // The second chunk's listing fails and is retried after a backoff: Ctrl-C during that wait.
    await world.fault({ method: 'GET', path: '/tasks', kind: 'delay', delayMs: 0 });
    await world.fault({ method: 'GET', path: '/tasks', kind: 'status', status: 503, count: 10 });
    const result = await runTaskctl(
      ['create', S, 'a.com', 'b.com', '--chunk-size', '1', '--reuse-window', '1h', '-q'],
      {
        env: world.env,
        clock: ctrlCWhen(world.clock, controller, (ms) => ms >= 1),
        signal: controller.signal,
      },
    );
    expect(result.code).toBe(130);
    const tasks = await world.tasks();
    expect(tasks).toHaveLength(1);
    expect(result.stderr).toMatch(/interrupted before sending chunk 2 of 2: nothing was created for it/);
    expect(result.stderr).toMatch(new RegExp(`created 1 of 2 tasks before that: ${tasks[0]!.id}`));
  });
});

describe('--reuse-window reuses only what is worth reusing', () => {
  it('never a failed task', async () => {
    const first = await earlier(['taskfail-a.com']);
    // Items of 0 ms: the task has ended by the time the sandbox answers its creation.
    expect((await world.tasks())[0]?.status).toBe('failed');
    const again = await world.run(['create', S, 'taskfail-a.com', '-q', '--reuse-window', '1h']);
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).not.toBe(String(first));
    expect(await world.tasks()).toHaveLength(2);
  });

  it('a completed task with failed items only with --allow-item-failures', async () => {
    const first = await earlier(['fail-a.com', 'b.com']);
    expect((await world.tasks())[0]?.status).toBe('completed');
    const strict = await world.run(['create', S, 'fail-a.com', 'b.com', '-q', '--reuse-window', '1h']);
    expect(strict.stdout.trim()).not.toBe(String(first));
    const lenient = await world.run([
      'create',
      S,
      'fail-a.com',
      'b.com',
      '-q',
      '--reuse-window',
      '1h',
      '--allow-item-failures',
    ]);
    // It only reused: nothing was sent, but it is a job all the same (named, listed, resumable).
    expect(lenient.stderr).toMatch(/^job j-[0-9a-z]+: taskctl jobs\n$/);
    expect([String(first), strict.stdout.trim()]).toContain(lenient.stdout.trim());
    expect(await world.tasks()).toHaveLength(2);
  });
});

describe('items as written', () => {
  it('says once how many items validation changed, and --no-validate sends them as written', async () => {
    const normalised = await world.run(['create', S, 'Example.COM', 'münchen.de', 'plain.org']);
    expect(normalised.stderr).toMatch(
      /normalised 2 items \(e\.g\. "Example\.COM" → "example\.com"\); --no-validate sends them as written/,
    );
    const raw = await world.run(['create', S, 'Example.COM', 'münchen.de', '-q', '--no-validate']);
    expect(raw.code).toBe(0);
    const res = await fetch(`${world.sandbox.url}/tasks/${raw.stdout.trim()}`, {
      headers: { 'X-API-Key': world.sandbox.apiKey },
    });
    const body = (await res.json()) as { data: { items: Array<{ target: string }> } };
    expect(body.data.items.map((i) => i.target)).toEqual(['Example.COM', 'münchen.de']);
  });

  it('an e-mail without "@" is refused before money is spent, naming its line; --no-validate gets the 422', async () => {
    const refused = await world.run(['create', 'email_verify'], { stdin: 'me@example.com\nx1.com\n' });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/stdin:2: "x1\.com": needs an "@"/);
    expect(await world.posts()).toBe(0);
    const unchecked = await world.run(['create', 'email_verify', 'x1.com', '--no-validate']);
    expect(unchecked.code).toBe(3);
    expect(unchecked.stderr).toMatch(/items\[0\] "x1\.com": needs an "@"/);
    expect(await world.posts()).toBe(1);
    expect(await world.tasks()).toEqual([]);
  });

  it('--dry-run -o json keeps the original text of the first normalised items and their count', async () => {
    const items = Array.from({ length: 12 }, (_, i) => `Host${i}.COM`);
    const result = await world.run(['create', S, ...items, '--dry-run', '-o', 'json']);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as { normalised: number; normalised_examples: unknown[] };
    expect(json.normalised).toBe(12);
    expect(json.normalised_examples).toHaveLength(5);
    expect(json.normalised_examples[0]).toEqual({ item: 'Host0.COM', sent: 'host0.com' });
  });
});

describe('a failing stdout never hides a side effect', () => {
  it('stops before the next chunk, names every task created on stderr, exits 14', async () => {
    const home = mkdtempSync(join(tmpdir(), 'taskctl-create-'));
    try {
      const { code, stderr } = await withClosedStdout(
        world,
        ['create', S, 'a.com', 'b.com', 'c.com', 'd.com', 'e.com', '--chunk-size', '1', '-q'],
        home,
        1,
      );
      const tasks = idsOf(await world.tasks());
      expect(code).toBe(14);
      expect(tasks.length).toBeGreaterThanOrEqual(2);
      expect(tasks.length).toBeLessThan(5);
      expect(stderr).toMatch(
        new RegExp(
          `cannot write the output \\(the reader went away\\): created ${tasks.length} of 5 tasks: ${tasks.join(' ')}; no further task was started`,
        ),
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

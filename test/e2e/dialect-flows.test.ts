/**
 * The core commands against every sandbox dialect (in-process: `main()` against an in-process sandbox that shares
 * the CLI's virtual clock, so waits take no real time). Most dialects are servers the contract (docs/openapi.json)
 * allows; four (`string-ids`, `data-shapes`, `no-items`, `sparse`) go beyond it, servers a tolerant client should
 * still survive (docs/sandbox.md#dialects). The plain flow must work on all of them, and each dialect's own cases must
 * give the exit code and output docs/sandbox.md#dialects states.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { DIALECT_NAMES } from '../../src/sandbox/dialect-names.js';
import type { DialectName } from '../../src/sandbox/dialect-names.js';
import { FakeClock } from '../clock.js';
import { runTaskctl } from '../unit/commands/run-in-process.js';
import type { RunOptions, RunResult } from '../unit/commands/run-in-process.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

interface World {
  run: (argv: string[], options?: RunOptions) => Promise<RunResult>;
  /** A fault the sandbox plays (POST /__sandbox/faults; docs/sandbox.md). */
  fault: (body: Record<string, unknown>) => Promise<void>;
}

async function world(dialects: readonly string[], options: SandboxOptions = {}): Promise<World> {
  const clock = new FakeClock();
  const sandbox = await startSandbox({ port: 0, clock, itemMs: 1000, rateLimit: 0, dialects, ...options });
  cleanups.push(() => sandbox.close());
  return {
    fault: async (body) => {
      await fetch(`${sandbox.origin}/__sandbox/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    },
    run: (argv, runOptions = {}) =>
      runTaskctl(argv, {
        clock,
        ...runOptions,
        env: { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey, ...runOptions.env },
      }),
  };
}

const show = (result: RunResult) => `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;

/**
 * The dialects that change no answer of the plain flow below: error-string and status-400 change error answers (the
 * flow meets none), reset-delta and reset-ms the rate-limit headers (its sandbox has no limit), per-page-clamp a
 * per_page over 100 (no command asks for one). In each the flow is the reference's, so it runs once with the five at
 * once, not five times (error-string, status-400 and reset-delta have cases of their own below, where they answer).
 */
const FLOW_UNCHANGED: readonly DialectName[] = [
  'error-string',
  'status-400',
  'reset-delta',
  'reset-ms',
  'per-page-clamp',
];
const FLOWS = [
  'reference',
  ...DIALECT_NAMES.filter((name) => !FLOW_UNCHANGED.includes(name)),
  FLOW_UNCHANGED.join('+'),
];

describe.each(FLOWS)('the core commands against the %s dialect', (dialect) => {
  const dialects = dialect === 'reference' ? [] : dialect.split('+');

  // Eleven commands: a minute on a loaded machine.
  it('services, balance, create, list, show, wait, watch: the plain flow works', { timeout: 60_000 }, async () => {
    const { run } = await world(dialects);
    const services = await run(['services']);
    expect(services.code, show(services)).toBe(0);
    expect(services.stdout).toMatch(/^domain_check_availability\t/m);

    const balance = await run(['balance']);
    expect(balance.code, show(balance)).toBe(0);
    expect(balance.stdout).toMatch(/^10000\tcoins$/m);

    const created = await run(['create', 'domain_check_availability', 'a.com', 'b.com', '-q']);
    expect(created.code, show(created)).toBe(0);
    expect(created.stdout).toBe('1\n');

    const list = await run(['list']);
    expect(list.code, show(list)).toBe(0);
    expect(list.stdout).toMatch(/^1\tdomain_check_availability\t/m);

    const wait = await run(['wait', '1', '--timeout', '10m']);
    expect(wait.code, show(wait)).toBe(0);

    const watch = await run(['watch', '1', '--timeout', '10m']);
    expect(watch.code, show(watch)).toBe(0);

    const shown = await run(['show', '1', '-o', 'json']);
    expect(shown.code, show(shown)).toBe(0);
    const task = JSON.parse(shown.stdout) as { items?: Array<{ target: string; status: string }> };
    if (dialect !== 'no-items') {
      expect(task.items?.map((item) => [item.target, item.status])).toEqual([
        ['a.com', 'completed'],
        ['b.com', 'completed'],
      ]);
    }
    const after = await run(['balance']);
    expect(after.stdout).toMatch(/^9998\tcoins$/m);
  });
});

/** Creates one task and returns its id (as printed by `create -q`). */
async function create(run: World['run'], items: string[], service = 'domain_check_availability'): Promise<string> {
  const created = await run(['create', service, ...items, '-q']);
  expect(created.code, show(created)).toBe(0);
  return created.stdout.trim();
}

describe('item-statuses: success is only what was seen', () => {
  it('a completed task with an item in status error: wait exits 11, 0 with --allow-item-failures', async () => {
    const { run } = await world(['item-statuses']);
    const id = await create(run, ['a.com', 'fail-b.com']);
    const wait = await run(['wait', id]);
    expect(wait.code, show(wait)).toBe(11);
    expect((await run(['wait', id, '--allow-item-failures'])).code).toBe(0);
  });

  it('a completed task with a skipped item counted in neither count: wait exits 11', async () => {
    const { run } = await world(['item-statuses']);
    const id = await create(run, ['a.com', 'skip-b.com']);
    const wait = await run(['wait', id]);
    expect(wait.code, show(wait)).toBe(11);
  });

  it('show --items-status failed lists the error and skipped items', async () => {
    const { run } = await world(['item-statuses']);
    const id = await create(run, ['a.com', 'fail-b.com', 'skip-c.com']);
    await run(['wait', id]);
    const failed = await run(['show', id, '--items-status', 'failed', '-o', 'json']);
    expect(failed.code, show(failed)).toBe(0);
    const items = JSON.parse(failed.stdout) as { items?: Array<{ target: string }> } | Array<{ target: string }>;
    const targets = (Array.isArray(items) ? items : (items.items ?? [])).map((item) => item.target);
    expect(targets).toEqual(['fail-b.com', 'skip-c.com']);
  });
});

describe('task-statuses: unknown task statuses never count as success', () => {
  it('a task that ends cancelled: wait exits 10 (not 124)', async () => {
    const { run } = await world(['task-statuses']);
    const id = await create(run, ['a.com', 'taskfail-b.com']);
    const wait = await run(['wait', id, '--timeout', '30m']);
    expect(wait.code, show(wait)).toBe(10);
  });

  it('a task that ends archived with a completed_at: wait exits 10', async () => {
    const { run } = await world(['task-statuses']);
    const id = await create(run, ['archive-a.com']);
    const wait = await run(['wait', id, '--timeout', '30m']);
    expect(wait.code, show(wait)).toBe(10);
  });

  it('an unknown status is shown as it came and warned about once per run', async () => {
    const { run } = await world(['task-statuses']);
    const id = await create(run, ['a.com', 'b.com', 'c.com']);
    const wait = await run(['wait', id]);
    expect(wait.code, show(wait)).toBe(0);
    expect(wait.stderr.match(/"running"/g)).toHaveLength(1);
  });

  it('a wait that times out on an unknown status names it', async () => {
    const { run } = await world(['task-statuses']);
    const id = await create(run, ['slow-a.com', 'slow-b.com']);
    const wait = await run(['wait', id, '--timeout', '5s']);
    expect(wait.code, show(wait)).toBe(124);
    // After the error line, the status itself (not the "still running: taskctl wait ..." hint) is named.
    const message = wait.stderr.slice(wait.stderr.indexOf('error: timed out'));
    expect(message).toMatch(/\brunning\b(?!: taskctl)/);
  });
});

describe('data-shapes: result data of any JSON shape', () => {
  it('a nested object is accepted (domain_check_availability)', async () => {
    const { run } = await world(['data-shapes']);
    const id = await create(run, ['a.com']);
    expect((await run(['wait', id])).code).toBe(0);
    const shown = await run(['show', id, '-o', 'json']);
    expect(shown.code, show(shown)).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ items: [{ data: { details: { tld: 'com' } } }] });
  });

  it('arrays and strings are accepted: wait exits 0 and show prints them', async () => {
    const { run } = await world(['data-shapes']);
    const whois = await create(run, ['a.com'], 'domain_whois_history');
    const email = await create(run, ['x@example.com'], 'email_verify');
    const wait = await run(['wait', whois, email, '--timeout', '10m']);
    expect(wait.code, show(wait)).toBe(0);
    const shownWhois = await run(['show', whois, '-o', 'json']);
    expect(shownWhois.code, show(shownWhois)).toBe(0);
    expect(Array.isArray((JSON.parse(shownWhois.stdout) as { items: Array<{ data: unknown }> }).items[0]!.data)).toBe(
      true,
    );
    const shownEmail = await run(['show', email, '-o', 'tsv']);
    expect(shownEmail.code, show(shownEmail)).toBe(0);
    expect(shownEmail.stdout).toMatch(/"accepted"|"[a-z_]+"/);
  });
});

describe('no-items and bare-tasks', () => {
  it('show of a task without items says so', async () => {
    const { run } = await world(['no-items']);
    const id = await create(run, ['a.com']);
    await run(['wait', id]);
    const shown = await run(['show', id]);
    expect(shown.code, show(shown)).toBe(0);
    expect(shown.stderr).toMatch(/^warning: the service sent no item results for task \d+$/m);
  });

  it('a completed task with neither items nor counts is no proof of success: wait exits 11', async () => {
    const { run } = await world(['no-items', 'bare-tasks']);
    const id = await create(run, ['a.com']);
    const wait = await run(['wait', id, '--timeout', '10m']);
    expect(wait.code, show(wait)).toBe(11);
  });
});

describe('errors in other shapes and statuses', () => {
  it('error-string: a missing task is exit 5 naming the task', async () => {
    const { run } = await world(['error-string']);
    const missing = await run(['show', '999']);
    expect(missing.code, show(missing)).toBe(5);
    expect(missing.stderr).toMatch(/^error: task 999 was not found$/m);
  });

  it('status-400: refusals are told apart by their code (not found 5, balance 6)', async () => {
    const { run, fault } = await world(['status-400'], { balance: 1 });
    const missing = await run(['show', '999']);
    expect(missing.code, show(missing)).toBe(5);
    // The balance guard refuses first, before any POST (the balance is read beside the create's snapshot).
    const guarded = await run(['create', 'domain_check_availability', 'a.com', 'b.com']);
    expect(guarded.code, show(guarded)).toBe(6);
    expect(guarded.stderr).toMatch(/above the balance of 1/);
    // With the balance unreadable the create goes on, and the service's own refusal (a 400 here) is still exit 6.
    await fault({ method: 'GET', path: '/balance', kind: 'status', status: 503, count: 8 });
    const poor = await run(['create', 'domain_check_availability', 'a.com', 'b.com']);
    expect(poor.code, show(poor)).toBe(6);
    expect(poor.stderr).toMatch(/Insufficient balance/);
  });

  it('reset-delta: rate-limited commands wait out the window and succeed', async () => {
    const { run } = await world(['reset-delta'], { rateLimit: 2 });
    for (let i = 0; i < 4; i++) {
      const balance = await run(['balance']);
      expect(balance.code, show(balance)).toBe(0);
    }
  });
});

describe('extra-fields: machine output keeps the server data', () => {
  it('show -o json keeps unknown fields of the task and its items', async () => {
    const { run } = await world(['extra-fields']);
    const id = await create(run, ['a.com']);
    await run(['wait', id]);
    const shown = await run(['show', id, '-o', 'json']);
    expect(shown.code, show(shown)).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ metadata: { source: 'api' }, items: [{ attempts: 1 }] });
  });
});

describe('every dialect at once', () => {
  it('the plain flow still works: create, wait, list, balance (all but no-items)', async () => {
    const { run } = await world(DIALECT_NAMES.filter((name) => name !== 'no-items'));
    const id = await create(run, ['a.com', 'b.com']);
    const wait = await run(['wait', id, '--timeout', '10m']);
    // task-statuses makes the statuses unknown but the end is still `completed` with every item seen completed.
    expect(wait.code, show(wait)).toBe(0);
    expect((await run(['list'])).code).toBe(0);
    expect((await run(['balance'])).stdout).toMatch(/^9998\tcoins$/m);
  });

  it('the plain flow with every dialect: the wait ends, and without item evidence it is exit 11, never 0', async () => {
    const { run } = await world(['all']);
    const id = await create(run, ['a.com', 'b.com']);
    const wait = await run(['wait', id, '--timeout', '10m']);
    expect(wait.code, show(wait)).toBe(11);
    expect(wait.stderr).toMatch(/✗ task \d+ completed \(the server reports no item progress\)/);
  });
});

describe('taskctl sandbox --dialect', () => {
  it('list prints every dialect with its description and starts nothing', async () => {
    const listed = await runTaskctl(['sandbox', '--dialect', 'list']);
    expect(listed.code, show(listed)).toBe(0);
    const names = listed.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t')[0]);
    expect(names).toEqual(DIALECT_NAMES);
    expect(listed.stdout).toMatch(/^item-statuses\tdocumented\t.*skipped/m);
    // Four go beyond what the contract allows, and are labelled so.
    const beyond = listed.stdout.split('\n').filter((line) => line.split('\t')[1] === 'beyond the contract');
    expect(beyond.map((line) => line.split('\t')[0])).toEqual(['string-ids', 'data-shapes', 'no-items', 'sparse']);
    expect(listed.stderr).toMatch(/--clock-skew DURATION/);
  });

  it('an unknown dialect is exit 2 naming the known ones', async () => {
    const refused = await runTaskctl(['sandbox', '--port', '0', '--dialect', 'klingon']);
    expect(refused.code, show(refused)).toBe(2);
    expect(refused.stderr).toMatch(/unknown sandbox dialect "klingon".*error-string/);
    expect(refused.stderr).not.toMatch(/bug in taskctl/);
  });
});

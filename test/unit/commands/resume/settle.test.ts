/**
 * A chunk in doubt (a `send` record, no outcome: a run killed while its POST was out) waits no longer than the
 * exactly-once rule needs: its request was lost at the latest when `resume` began, so a task already in the list is
 * adopted after the first horizon (seconds), and a job stopped long ago settles with no wait at all. The waits are the
 * clock's sleeps (virtual time), counted.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, DecoratorHandler, type Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { ctrlCWhen } from '../../../clock.js';
import { postTask, startSandboxWorld, worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-settle-', (w, d) => ((world = w), (dir = d)));

interface Row {
  type: string;
  chunk?: number;
  sent_at?: number;
  settle_after?: number;
  task?: number;
}
const journal = () => join(dir, 'job.jsonl');
const rows = () =>
  readFileSync(journal(), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Row);

/** The time the world's clock slept since its `from`-th sleep (the fake clock records every delay). */
const sleptSince = (from: number) => world.clock.sleeps.slice(from).reduce((sum, ms) => sum + Math.max(0, ms), 0);

/** A finished job of three chunks (one item each) in `journal()`: its tasks' ids, in chunk order. */
async function threeChunkJob(): Promise<number[]> {
  const created = await runTaskctl(
    ['create', S, 'a.com', 'b.com', 'c.com', '--chunk-size', '1', '--journal', journal(), '-q'],
    { env: world.env, clock: world.clock, home: dir },
  );
  expect(created.code, created.stderr).toBe(0);
  return created.stdout.trim().split('\n').map(Number);
}

/** A two-chunk job whose chunk 2 was answered but the answer never recorded (killed at that instant). */
async function jobKilledAfterChunk2Landed(shiftMs: number): Promise<number> {
  const created = await runTaskctl(['create', S, 'a.com', 'b.com', '--chunk-size', '1', '--journal', journal(), '-q'], {
    env: world.env,
    clock: world.clock,
    home: dir,
  });
  expect(created.code, created.stderr).toBe(0);
  const kept = rows()
    .filter((row) => !(row.type === 'created' && row.chunk === 2) && row.type !== 'done')
    .map((row) =>
      row.type === 'send' && row.chunk === 2
        ? { ...row, sent_at: (row.sent_at ?? 0) - shiftMs, settle_after: (row.settle_after ?? 0) - shiftMs }
        : row,
    );
  writeFileSync(journal(), kept.map((row) => JSON.stringify(row)).join('\n') + '\n');
  const tasks = await world.tasks();
  return Math.max(...tasks.map((task) => task.id));
}

it('a task already in the list: adopted after the first horizon (seconds), not the deadline and its horizon', async () => {
  const task = await jobKilledAfterChunk2Landed(0);
  const from = world.clock.sleeps.length;
  const resumed = await runTaskctl(['resume', journal()], { env: world.env, clock: world.clock, home: dir });
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(`chunk 2: task ${task} was created by the interrupted request`);
  // The 10 s schedule of the exactly-once rule, not the request's 60 s deadline and another minute of horizon.
  expect(sleptSince(from)).toBeLessThanOrEqual(15_000);
  expect(await world.tasks()).toHaveLength(2);
});

it('a job whose POST left long ago settles with no wait', async () => {
  const task = await jobKilledAfterChunk2Landed(60 * 60_000);
  const from = world.clock.sleeps.length;
  const resumed = await runTaskctl(['resume', journal(), '-q'], { env: world.env, clock: world.clock, home: dir });
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(sleptSince(from)).toBe(0);
  const settled = rows().find((row) => row.type === 'reconciled');
  expect(settled).toMatchObject({ chunk: 2, task, by: 'scan' });
});

it('while it waits, stderr says for what and counts down on one line that fits the terminal, with -q too', async () => {
  await jobKilledAfterChunk2Landed(0);
  const resumed = await runTaskctl(['resume', journal(), '-q'], {
    env: world.env,
    clock: world.clock,
    home: dir,
    stderrTTY: true,
    columns: 60,
  });
  expect(resumed.code, resumed.stderr).toBe(0);
  const drawn = resumed.stderr
    .split('\r\u001b[2K')
    .filter((line) => line.includes(' left: checking the task list for chunk 2'));
  expect(drawn.length).toBeGreaterThan(0);
  for (const line of drawn) {
    expect(line).not.toContain('\n');
    expect(line.length).toBeLessThanOrEqual(59);
  }
  // What it does comes first, within the width; why after it.
  expect(drawn[0]).toMatch(/^\S+ left: checking the task list for chunk 2: it was/);
});

it('a chunk adopted by settling is counted once in the progress: "chunk 3 of 3", not "of 4"', async () => {
  await threeChunkJob();
  // Killed as chunk 2's answer came back: chunk 2 landed unrecorded, chunk 3 was never sent.
  const kept = rows().filter(
    (row) =>
      !(row.type === 'created' && row.chunk !== 1) && !(row.type === 'send' && row.chunk === 3) && row.type !== 'done',
  );
  writeFileSync(journal(), kept.map((row) => JSON.stringify(row)).join('\n') + '\n');
  const resumed = await runTaskctl(['resume', journal()], { env: world.env, clock: world.clock, home: dir });
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toMatch(/chunk 2: task \d+ was created by the interrupted request/);
  expect(resumed.stderr).toMatch(/chunk 3 of 3: 3 of 3 tasks created/);
});

it('Ctrl-C while it waits: nothing more was sent, and the one next step is the same resume', async () => {
  await jobKilledAfterChunk2Landed(0);
  const controller = new AbortController();
  const clock = ctrlCWhen(world.clock, controller, () => true);
  const resumed = await runTaskctl(['resume', journal(), '-q'], {
    env: world.env,
    clock,
    home: dir,
    signal: controller.signal,
  });
  expect(resumed.code).toBe(130);
  const id = (rows()[0] as Row & { id?: string }).id;
  expect(id).toMatch(/^j-/);
  expect(resumed.stderr.trim().split('\n').slice(-2)).toEqual([
    'error: interrupted before this run sent anything',
    `Continue it with: taskctl resume ${id}`,
  ]);
  expect(await world.tasks()).toHaveLength(2);
});

it.each([
  ['recovered by the scan', (): string[] => []],
  ['adopted by hand', (task: number): string[] => ['--adopt', `2=${task}`]],
])('-q prints the task %s for a chunk in doubt with those it created, in chunk order', async (_, flags) => {
  const [first, second] = await threeChunkJob();
  // Killed as chunk 2's answer came back: chunk 2 landed unrecorded, chunk 3 was never sent.
  const kept = rows().filter(
    (row) =>
      !(row.type === 'created' && row.chunk !== 1) && !(row.type === 'send' && row.chunk === 3) && row.type !== 'done',
  );
  writeFileSync(journal(), kept.map((row) => JSON.stringify(row)).join('\n') + '\n');
  const resumed = await runTaskctl(['resume', journal(), '-q', ...flags(second!)], {
    env: world.env,
    clock: world.clock,
    home: dir,
  });
  expect(resumed.code, resumed.stderr).toBe(0);
  const printed = resumed.stdout.trim().split('\n').map(Number);
  const newest = Math.max(...(await world.tasks()).map((task) => task.id));
  // What `taskctl resume ID -q | taskctl wait -` waits for: every task this run gave a chunk, not the earlier run's.
  expect(printed).toEqual([second, newest]);
  expect(printed).not.toContain(first);
});

describe('--adopt CHUNK=ID refuses a task that cannot be the chunk’s (exit 2, nothing adopted)', () => {
  /** A three-chunk job (one item each) whose chunk 2 is in doubt, and its id. */
  async function jobWithChunk2InDoubt(): Promise<void> {
    await threeChunkJob();
    const kept = rows().filter((row) => !(row.type === 'created' && row.chunk !== 1) && row.type !== 'done');
    writeFileSync(journal(), kept.map((row) => JSON.stringify(row)).join('\n') + '\n');
  }
  /**
   * A task made by another create: in this machine's state and cache (`here`), its cache only, or elsewhere (another
   * client: straight on the service, nothing of it on this machine).
   */
  async function otherTask(items: string[], home: string): Promise<number> {
    if (home === 'elsewhere') return postTask(world.sandbox, S, items);
    const other = mkdtempSync(join(tmpdir(), 'taskctl-other-'));
    try {
      const made = await runTaskctl(['create', S, ...items, '-q'], {
        // 'ledger': this machine's cache (its ledger), another state directory (so no journal of it here).
        env: home === 'ledger' ? { ...world.env, TASKCTL_STATE_DIR: other } : world.env,
        clock: world.clock,
        home: dir,
      });
      expect(made.code, made.stderr).toBe(0);
      return Number(made.stdout.trim());
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  }
  const adopt = (task: number) =>
    runTaskctl(['resume', journal(), '--adopt', `2=${task}`, '-y'], { env: world.env, clock: world.clock, home: dir });
  const adoptedRecords = () => rows().filter((row) => row.type === 'reconciled');

  it('Ctrl-C while the task given is read: nothing recorded, and the hint keeps the --adopt', async () => {
    await jobWithChunk2InDoubt();
    const task = (await world.tasks()).map((t) => t.id).sort((a, b) => a - b)[1] ?? 0;
    const controller = new AbortController();
    const dispatcher = new CtrlCAtRead(new RegExp(`/tasks/${task}$`), controller);
    try {
      const stopped = await runTaskctl(['resume', journal(), '--adopt', `2=${task}`, '-y'], {
        env: world.env,
        clock: world.clock,
        home: dir,
        dispatcher,
        signal: controller.signal,
      });
      expect(stopped.code, stopped.stderr).toBe(130);
      expect(adoptedRecords()).toEqual([]);
      const hint = /Continue it with: taskctl (resume .*)$/m.exec(stopped.stderr)?.[1] ?? '';
      expect(hint).toMatch(new RegExp(`^resume j-\\S+ --yes --adopt 2=${task}$`));
    } finally {
      await dispatcher.close();
    }
  });

  it('one task given for two chunks, or two tasks for one chunk', async () => {
    await jobWithChunk2InDoubt();
    const twice = (...pairs: string[]) =>
      runTaskctl(['resume', journal(), ...pairs.flatMap((pair) => ['--adopt', pair]), '-y'], {
        env: world.env,
        clock: world.clock,
        home: dir,
      });
    const sameTask = await twice('2=2', '3=2');
    expect(sameTask.code).toBe(2);
    expect(sameTask.stderr).toContain('--adopt 3=2 and --adopt 2=2: one task per chunk, one chunk per task');
    const sameChunk = await twice('2=2', '2=3');
    expect(sameChunk.code).toBe(2);
    expect(sameChunk.stderr).toContain('--adopt 2=3 and --adopt 2=2');
    // A task a chunk already has: named by its chunk, and "nothing to adopt" when it is the chunk given.
    const first = rows().find((row) => row.type === 'created' && row.chunk === 1)?.task;
    const othersTask = await twice(`2=${first}`);
    expect(othersTask.code).toBe(2);
    expect(othersTask.stderr).toContain(`--adopt 2=${first}: task ${first} is already chunk 1's`);
    const ownTask = await twice(`1=${first}`);
    expect(ownTask.code).toBe(2);
    expect(ownTask.stderr).toContain(`--adopt 1=${first}: task ${first} is chunk 1's already; nothing to adopt`);
    expect(adoptedRecords()).toEqual([]);
  });

  it('a task of another size', async () => {
    await jobWithChunk2InDoubt();
    const task = await otherTask(['x.com', 'y.com'], 'elsewhere');
    const result = await adopt(task);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--adopt 2=${task}: task ${task} has 2 items, and chunk 2 has 1 item`);
    expect(adoptedRecords()).toEqual([]);
  });

  it('a task of the same size with other items', async () => {
    await jobWithChunk2InDoubt();
    const task = await otherTask(['x.com'], 'elsewhere');
    const result = await adopt(task);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--adopt 2=${task}: task ${task} holds other items than chunk 2`);
    expect(adoptedRecords()).toEqual([]);
  });

  it('a task another job of this machine names', async () => {
    await jobWithChunk2InDoubt();
    const task = await otherTask(['b.com'], 'here');
    const result = await adopt(task);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`--adopt 2=${task}: task ${task} is chunk 1 of job j-[0-9a-z]+`));
    expect(adoptedRecords()).toEqual([]);
  });

  it('a task another taskctl run on this machine created (its ledger entry), whatever its journal', async () => {
    await jobWithChunk2InDoubt();
    const task = await otherTask(['b.com'], 'ledger');
    const result = await adopt(task);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `--adopt 2=${task}: task ${task} was created by another taskctl run on this machine`,
    );
    expect(adoptedRecords()).toEqual([]);
  });

  it('the same when the chunk given is the only one left: nothing is left to buy, and the ledger is still read', async () => {
    await threeChunkJob();
    const kept = rows().filter((row) => !(row.type === 'created' && row.chunk === 3) && row.type !== 'done');
    writeFileSync(journal(), kept.map((row) => JSON.stringify(row)).join('\n') + '\n');
    const task = await otherTask(['c.com'], 'ledger');
    const result = await runTaskctl(['resume', journal(), '--adopt', `3=${task}`, '-y'], {
      env: world.env,
      clock: world.clock,
      home: dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `--adopt 3=${task}: task ${task} was created by another taskctl run on this machine`,
    );
    expect(adoptedRecords()).toEqual([]);
  });
});

it('a chunk whose recorded task holds a different number of items: show --job says so, and --adopt gives it its own', async () => {
  const own = (await threeChunkJob())[1] ?? 0;
  // Another client's (straight on the service: nothing of it on this machine).
  const wrong = await postTask(world.sandbox, S, ['x.com', 'y.com']);
  // As an earlier taskctl let `--adopt 2=…` record: a task of the service with 2 items for a chunk of 1.
  writeFileSync(
    journal(),
    readFileSync(journal(), 'utf8') +
      JSON.stringify({ type: 'reconciled', chunk: 2, task: wrong, cost: 2, by: 'user' }) +
      '\n',
  );
  const shown = await runTaskctl(['show', '--job', journal()], { env: world.env, clock: world.clock, home: dir });
  expect(shown.code).toBe(8);
  expect(shown.stderr).toContain(`Task ${wrong} is not this chunk's (it holds a different number of items)`);
  expect(shown.stderr).not.toContain('is this the service the job ran on?');
  const hinted = new RegExp(`taskctl resume (\\S+) --adopt 2=ID`).exec(shown.stderr);
  expect(hinted?.[1]).toBe(journal());
  // The hint, with the chunk's own task.
  const fixed = await runTaskctl(['resume', journal(), '--adopt', `2=${own}`], {
    env: world.env,
    clock: world.clock,
    home: dir,
  });
  expect(fixed.code, fixed.stderr).toBe(0);
  expect(
    (await runTaskctl(['show', '--job', journal(), '-q'], { env: world.env, clock: world.clock, home: dir })).code,
  ).toBe(0);
  // A chunk whose task holds its items is not settled again.
  const again = await runTaskctl(['resume', journal(), '--adopt', `2=${wrong}`], {
    env: world.env,
    clock: world.clock,
    home: dir,
  });
  expect(again.code).toBe(2);
  expect(again.stderr).toContain(`chunk 2 is not in doubt (it is task ${own}, which holds its items)`);
});

describe('a finished job sends nothing', () => {
  /** A finished three-chunk job whose chunk 2 records a task of two items (as an earlier `--adopt` let it): its own. */
  async function finishedWithWrongTask(): Promise<number> {
    const own = (await threeChunkJob())[1] ?? 0;
    const wrong = await postTask(world.sandbox, S, ['x.com', 'y.com']); // another client's
    const record = { type: 'reconciled', chunk: 2, task: wrong, cost: 2, by: 'user' };
    writeFileSync(journal(), readFileSync(journal(), 'utf8') + JSON.stringify(record) + '\n');
    return own;
  }
  /** A cache directory that cannot be made (under a regular file): the ledger there cannot be used. */
  const unusableCache = () => {
    writeFileSync(join(dir, 'a-file'), '');
    return { ...world.env, TASKCTL_CACHE_DIR: join(dir, 'a-file', 'cache') };
  };

  it('resume --adopt re-settles a chunk without the ledger, and -q prints the task it gave the chunk', async () => {
    const own = await finishedWithWrongTask();
    const env = unusableCache();
    const fixed = await runTaskctl(['resume', journal(), '--adopt', `2=${own}`, '-q'], {
      env,
      clock: world.clock,
      home: dir,
    });
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.stderr).not.toMatch(/ledger/);
    // What `taskctl resume ID -q | taskctl wait -` waits for: the task this run gave a chunk.
    expect(fixed.stdout).toBe(`${own}\n`);
    expect(
      rows()
        .filter((row) => row.type === 'reconciled')
        .at(-1),
    ).toMatchObject({ chunk: 2, task: own, by: 'user' });
    // Its last line stays its `done` (what `jobs` and TAB completion glance at), written in the same write.
    expect(rows().at(-1)).toMatchObject({ type: 'done' });
    const again = await runTaskctl(['resume', journal(), '-q'], { env, clock: world.clock, home: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/ledger/);
    expect(again.stdout).toBe('');
  });
});

describe('--resend CHUNK sends again only what one scan of the window cannot find', () => {
  const items = ['rz1.example.com', 'rz2.example.com', 'rz3.example.com'];
  const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });
  const listDown = () => world.fault({ method: 'GET', path: '/tasks', kind: 'non-json', status: 502, count: 100_000 });
  /** A one-chunk job stopped with exit 9 on its POST's lost answer (`reset-after`: it landed), the list down: its id. */
  async function lostAnswer(postFault: 'reset-after' | 'reset-before'): Promise<string> {
    await world.fault({ method: 'POST', path: '/tasks', kind: postFault, count: 1 });
    await listDown();
    const created = await run(['create', S, ...items, '--journal', journal(), '-y']);
    expect(created.code, created.stderr).toBe(9);
    return (rows()[0] as Row & { id?: string }).id ?? '';
  }

  it('a list that cannot be read offers no --resend; once it reads, --resend names the task it finds and sends nothing', async () => {
    const id = await lostAnswer('reset-after');
    const unread = await run(['resume', id, '-y']);
    expect(unread.code).toBe(9);
    expect(unread.stderr).toContain('the task list could not be read');
    expect(unread.stderr).toContain(`Try again later: taskctl resume ${id}`);
    expect(unread.stderr).not.toContain('--resend');
    await world.clearFaults();
    const [task] = await world.tasks();
    const refused = await run(['resume', id, '--resend', '1', '-y']);
    expect(refused.code).toBe(9);
    expect(refused.stderr).toContain(`task ${task?.id}`);
    expect(refused.stderr).toContain(`taskctl resume ${id} --yes --adopt 1=${task?.id}`);
    expect(await world.tasks()).toHaveLength(1);
    expect(await world.posts()).toBe(1);
    // The hint, followed: the chunk is the task, and nothing was paid twice.
    const adopted = await run(['resume', id, '--adopt', `1=${task?.id}`, '-y', '-q']);
    expect(adopted.code, adopted.stderr).toBe(0);
    expect(adopted.stdout).toBe(`${task?.id}\n`);
    expect(await world.posts()).toBe(1);
  });

  it('--resend of a chunk whose candidate exit 9 named (the user looked at it): sent again', async () => {
    // The list read in full before the POST (a complete snapshot), unreadable after it: the candidate found later is
    // one clean match, which only the earlier exit 9's naming it lets `--resend` pass.
    await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-after', count: 1 });
    const dispatcher = new ListReadOnce();
    let id = '';
    try {
      const created = await runTaskctl(['create', S, ...items, '--journal', journal(), '-y'], {
        env: world.env,
        clock: world.clock,
        home: dir,
        dispatcher,
      });
      expect(created.code, created.stderr).toBe(9);
      id = (rows()[0] as Row & { id?: string }).id ?? '';
    } finally {
      await dispatcher.close();
    }
    expect(rows().find((row) => row.type === 'send')).toMatchObject({ before_complete: true });
    const [task] = await world.tasks();
    const refused = await run(['resume', id, '--resend', '1', '-y']);
    expect(refused.code).toBe(9);
    // Each way on is a whole command ending its own line: the --resend one, pasted as printed, is the run below.
    expect(refused.stderr).toContain(
      `, then, if it is this chunk's: taskctl resume ${id} --yes --adopt 1=${task?.id}\n`,
    );
    const line = new RegExp(`^or, if task ${task?.id} is not this chunk's: taskctl (.*)$`, 'm').exec(
      refused.stderr,
    )?.[1];
    expect(line).toBe(`resume ${id} --yes --resend 1`);
    const resent = await run([...(line ?? '').split(' '), '-q']);
    expect(resent.code, resent.stderr).toBe(0);
    expect(resent.stdout).not.toContain(`${task?.id}`);
    expect(await world.posts()).toBe(2);
  });

  it('--resend past a named candidate needs the list read to the end: a last scan that fails sends nothing', async () => {
    const id = await lostAnswer('reset-after');
    await world.clearFaults();
    const named = await run(['resume', id, '--resend', '1', '-y']);
    expect(named.code).toBe(9);
    // The first read of the list sees the named candidate; every later one fails, so a task landing after it could
    // not be seen.
    const dispatcher = new ListReadOnce();
    try {
      const refused = await runTaskctl(['resume', id, '--resend', '1', '-y'], {
        env: world.env,
        clock: world.clock,
        home: dir,
        dispatcher,
      });
      expect(refused.code, refused.stderr).toBe(9);
      expect(refused.stderr).toContain('it was not sent again');
      expect(dispatcher.listReads).toBeGreaterThan(1);
    } finally {
      await dispatcher.close();
    }
    expect(await world.posts()).toBe(1);
  });

  it('a list that still cannot be read: refused, nothing sent, try again later', async () => {
    const id = await lostAnswer('reset-after');
    const refused = await run(['resume', id, '--resend', '1', '-y']);
    expect(refused.code).toBe(9);
    expect(refused.stderr).toContain('it was not sent again');
    expect(refused.stderr.trim().split('\n').at(-1)).toBe(`Try again later: taskctl resume ${id} --yes`);
    expect(await world.posts()).toBe(1);
  });

  it('a scan that reads and finds no task of the chunk: sent once', async () => {
    const id = await lostAnswer('reset-before');
    await world.clearFaults();
    expect(await world.tasks()).toHaveLength(0);
    const resent = await run(['resume', id, '--resend', '1', '-y']);
    expect(resent.code, resent.stderr).toBe(0);
    expect(resent.stderr).toContain(
      'next: check the task list for chunk 1 (--resend 1: sent again if no new task is there)',
    );
    expect(await world.tasks()).toHaveLength(1);
    expect([...(await world.itemCounts()).values()]).toEqual([1, 1, 1]);
  });
});

/**
 * The service's `Date` header written by a clock `aheadMs` ahead of the one stamping its tasks (a gateway's): every
 * response's Date moved on, the tasks' created_at as the sandbox stamps them.
 */
class DateAhead extends Agent {
  constructor(private readonly aheadMs: number) {
    super();
  }
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    return super.dispatch(options, new LaterDate(handler, this.aheadMs));
  }
}

/** A response's handler that reads its Date header `aheadMs` later (DateAhead). */
class LaterDate extends DecoratorHandler {
  constructor(
    handler: Dispatcher.DispatchHandler,
    private readonly aheadMs: number,
  ) {
    super(handler);
  }
  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    text?: string,
  ): void {
    const { date } = headers;
    const moved = typeof date === 'string' ? new Date(Date.parse(date) + this.aheadMs).toUTCString() : date;
    // Its typings declare only the constructor: the decorated handler's own step, as the prototype has it.
    const decorated = DecoratorHandler.prototype as Required<Pick<Dispatcher.DispatchHandler, 'onResponseStart'>>;
    decorated.onResponseStart.call(this, controller, status, { ...headers, date: moved }, text);
  }
}

describe('a Date header 5 minutes ahead of the clock stamping tasks', () => {
  it('a chunk whose task landed unrecorded: the resume finds it where the job’s own tasks place it, never sends it again', async () => {
    const dispatcher = new DateAhead(300_000);
    const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir, dispatcher });
    const created = await run([
      'create',
      S,
      'a.com',
      'b.com',
      'c.com',
      '--chunk-size',
      '1',
      '--journal',
      journal(),
      '-q',
    ]);
    // Each answer believed: the listing before its POST showed it new.
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).not.toMatch(/may have created/);
    const kept = rows().filter((row) => !(row.type === 'created' && row.chunk === 3) && row.type !== 'done');
    writeFileSync(journal(), kept.map((row) => JSON.stringify(row)).join('\n') + '\n');
    const landed = Math.max(...(await world.tasks()).map((task) => task.id));
    world.clock.nowMs += 10 * 60_000;
    const resumed = await run(['resume', journal()]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`chunk 3: task ${landed} was created by the interrupted request`);
    expect(await world.tasks()).toHaveLength(3);
    await dispatcher.close();
  });

  it('the job’s first chunk, its task landed unrecorded: the listing its send record keeps proves the task new', async () => {
    const dispatcher = new DateAhead(300_000);
    const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir, dispatcher });
    // Tasks of the service and size from before the job, an hour old: the listing shows them, and reaches past them.
    await postTask(world.sandbox, S, ['old.example.com']);
    world.clock.nowMs += 60 * 60_000;
    const created = await run(['create', S, 'a.com', '--journal', journal(), '-q']);
    expect(created.code, created.stderr).toBe(0);
    const kept = rows().filter((row) => row.type !== 'created' && row.type !== 'done');
    writeFileSync(journal(), kept.map((row) => JSON.stringify(row)).join('\n') + '\n');
    world.clock.nowMs += 10 * 60_000;
    const resumed = await run(['resume', journal()]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/chunk 1: task \d+ was created by the interrupted request/);
    expect(await world.tasks()).toHaveLength(2);
    await dispatcher.close();
  });
});

/** Ctrl-C (the run's signal aborted) as a GET whose path matches is sent. */
class CtrlCAtRead extends Agent {
  constructor(
    private readonly path: RegExp,
    private readonly controller: AbortController,
  ) {
    super();
  }
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (options.method === 'GET' && this.path.test(options.path))
      this.controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError' }));
    return super.dispatch(options, handler);
  }
}

/** Lets the first read of the task list through; every later one goes to a path the sandbox does not know (a 404). */
class ListReadOnce extends Agent {
  listReads = 0;
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const list = options.method === 'GET' && /\/tasks(\?|$)/.test(options.path);
    if (list && ++this.listReads > 1) return super.dispatch({ ...options, path: '/api/v1/no-such-list' }, handler);
    return super.dispatch(options, handler);
  }
}

describe('a chunk whose items the service refused', () => {
  const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });
  it('refused as more items than a task takes: no item to correct, the hint says a smaller --chunk-size, at every step', async () => {
    const small = await startSandboxWorld({ maxItems: 2 });
    try {
      const runSmall = (argv: string[]) => runTaskctl(argv, { env: small.env, clock: small.clock, home: dir });
      // Chunk 1 (3 items) refused, chunk 2 left to send.
      const argv = ['create', S, 'm1.com', 'm2.com', 'm3.com', 'm4.com', '--chunk-size', '3', '-y', '-q'];
      const created = await runSmall(argv);
      expect(created.code).toBe(3);
      expect(created.stderr).toMatch(/too many items: 3 \(max 2\)/);
      const id = /taskctl resume (j-[0-9a-z]+)/.exec(created.stderr)?.[1] ?? '';
      const advice = `Create those items again with a smaller --chunk-size (the service takes fewer in one task); continue the job without them: taskctl resume ${id} --skip-refused`;
      expect(created.stderr).toContain(advice);
      expect(created.stderr).not.toContain('Correct those items');
      const again = await runSmall(['resume', id, '-y']);
      expect(again.code).toBe(3);
      expect(again.stderr).toContain(advice);
      // Followed: smaller chunks take the refused items once; the job goes on without them.
      const smaller = await runSmall(['create', S, 'm1.com', 'm2.com', 'm3.com', '--chunk-size', '2', '-y', '-q']);
      expect(smaller.code, smaller.stderr).toBe(0);
      expect((await runSmall(['resume', id, '--skip-refused', '-y', '-q'])).code).toBe(0);
      expect([...(await small.itemCounts()).entries()].sort()).toEqual([
        ['m1.com', 1],
        ['m2.com', 1],
        ['m3.com', 1],
        ['m4.com', 1],
      ]);
      // Its only chunk refused: nothing is left to send, the same words without a resume.
      const alone = await runSmall(['create', S, 'n1.com', 'n2.com', 'n3.com', '-y', '-q']);
      expect(alone.code).toBe(3);
      const job = /job (j-[0-9a-z]+) is finished/.exec(alone.stderr)?.[1] ?? '';
      expect(alone.stderr).toContain(
        `Create those items again with a smaller --chunk-size (the service takes fewer in one task); job ${job} is finished without them.\n`,
      );
    } finally {
      await small.close();
    }
  });

  const items = ['r1.example.com', 'r2.example.com', 'bad item here', 'r4.example.com', 'r5.example.com'];

  it('is named by its items and never sent again; --skip-refused finishes the job past it, the --job commands use the rest', async () => {
    const input = join(dir, 'in.txt');
    writeFileSync(input, `${items.join('\n')}\n`);
    const created = await run(['create', S, '-f', input, '--no-validate', '--chunk-size', '2', '-y', '-q']);
    expect(created.code).toBe(3);
    const id = /job (j-[0-9a-z]+)/.exec(created.stderr)?.[1] ?? '';
    // The stop names the chunk by its items and the service's words, and never advises a plain resume.
    expect(created.stderr).toMatch(/items\[0\] "bad item here": contains a space/);
    expect(created.stderr).toMatch(/refused chunk 2 of 3 \(items 3–4: bad item here to r4\.example\.com\)/);
    expect(created.stderr.endsWith(`without them: taskctl resume ${id} --skip-refused\n`)).toBe(true);
    expect(created.stderr).not.toContain('Continue it with');
    expect(await world.posts()).toBe(2);

    const stopped = await run(['jobs', '-o', 'json']);
    expect(JSON.parse(stopped.stdout)).toMatchObject([{ id, state: 'refused', chunks_created: 1, in_doubt: 0 }]);
    // TAB completion's glance at the journal's last line says what `jobs` says.
    expect((await run(['__complete', 'jobs'])).stdout).toBe(`${id}\t${S} refused\n`);
    // A plain resume (bare: the only job to continue) says why, and sends nothing (the same items would be refused).
    const again = await run(['resume', '-y']);
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(
      /refused 1 chunk of job j-[0-9a-z]+: chunk 2 \(items 3–4\): creating the task: items\[0\]/,
    );
    expect(again.stderr).toContain(`taskctl resume ${id} --skip-refused`);
    expect(await world.posts()).toBe(2);
    const resend = await run(['resume', id, '--resend', '2', '-y']);
    expect(resend.code).toBe(2);
    expect(resend.stderr).toMatch(
      /--resend 2: the service refused the items of chunk 2 \(.*contains a space\); it is not in doubt/,
    );
    expect(await world.posts()).toBe(2);

    // The hint followed verbatim: chunk 3 is created, chunk 2 left without a task; the job is finished.
    const skipped = await run(['resume', id, '--skip-refused', '-y', '-q']);
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(skipped.stdout.trim().split('\n')).toHaveLength(1);
    expect(await world.posts()).toBe(3);
    expect([...(await world.itemCounts()).keys()].sort()).toEqual([
      'r1.example.com',
      'r2.example.com',
      'r5.example.com',
    ]);
    const rerun = await run(['resume', id, '-y', '-q']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(/left without a task/);
    expect(await world.posts()).toBe(3);

    const jobs = await run(['jobs', '-o', 'json']);
    expect(JSON.parse(jobs.stdout)).toMatchObject([{ id, state: 'finished', chunks_created: 2, chunks: 3 }]);
    for (const argv of [
      ['wait', '--job', id],
      ['show', '--job', id, '-o', 'json'],
      ['retry', '--job', id, '-y'],
    ]) {
      const result = await run(argv);
      expect(result.stderr, argv.join(' ')).toMatch(
        /the service refused chunk 2 of the job .*: it has no task; using its 2 tasks/,
      );
      expect(result.stderr).not.toMatch(/incomplete/);
    }
    expect(await world.posts()).toBe(3);
  });

  it('refused at its last chunk: nothing is left to send, so the job ends without it and no resume is offered', async () => {
    const created = await run([
      'create',
      S,
      'l1.example.com',
      'bad item here',
      '--chunk-size',
      '1',
      '--no-validate',
      '-y',
    ]);
    expect(created.code).toBe(3);
    const id = /job (j-[0-9a-z]+)/.exec(created.stderr)?.[1] ?? '';
    expect(created.stderr).toMatch(/refused chunk 2 of 2 \(item 2: bad item here\)/);
    expect(
      created.stderr.endsWith(
        `Correct those items and create them on their own; job ${id} is finished without them.\n`,
      ),
    ).toBe(true);
    expect(created.stderr).not.toContain('taskctl resume');
    const jobs = await run(['jobs', '-o', 'json']);
    expect(JSON.parse(jobs.stdout)).toMatchObject([{ id, state: 'finished', chunks_created: 1, chunks: 2 }]);
    // Nothing to take up: a bare resume finds no job to continue; the --job commands use its one task.
    const bare = await run(['resume', '-y']);
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stderr).toContain('no interrupted job to resume');
    const waited = await run(['wait', '--job', id]);
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stderr).toMatch(/the service refused chunk 2 of the job .*: it has no task; using its 1 task/);
    expect(await world.posts()).toBe(2);
  });
});

describe('a job with a chunk refused and a chunk in doubt', () => {
  const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });
  const items = ['r1.example.com', 'r2.example.com', 'bad item here', 'r4.example.com', 'r5.example.com'];
  /** The `taskctl resume …` command of the last line of stderr, as printed (up to its `, or` alternative). */
  // The hint's first way on (each is a whole command ending its line; the `or, …` line after an --adopt is the other).
  const hinted = (stderr: string) => {
    const lines = stderr.trim().split('\n');
    const last = (lines.at(-1)?.startsWith('or, if ') === true ? lines.at(-2) : lines.at(-1)) ?? '';
    const command = /taskctl (resume .*)$/.exec(last)?.[1];
    expect(command, last).toBeDefined();
    return (command ?? '').split(' ');
  };
  /** Chunk 2 refused (exit 3), then chunk 3's answer lost with the list unreadable (exit 9): the job's id. */
  async function refusedThenInDoubt(): Promise<string> {
    const input = join(dir, 'in.txt');
    writeFileSync(input, `${items.join('\n')}\n`);
    const created = await run(['create', S, '-f', input, '--no-validate', '--chunk-size', '2', '-y', '-q']);
    expect(created.code).toBe(3);
    const id = /job (j-[0-9a-z]+)/.exec(created.stderr)?.[1] ?? '';
    await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-after', count: 1 });
    await world.fault({ method: 'GET', path: '/tasks', kind: 'non-json', status: 502, count: 100_000 });
    const skipped = await run([...hinted(created.stderr), '-y']);
    expect(skipped.code, skipped.stderr).toBe(9);
    // Later, the list reads again: the hint still carries the way past the refused chunk.
    expect(skipped.stderr.trim().split('\n').at(-1)).toMatch(
      new RegExp(`: taskctl resume ${id} --skip-refused --yes$`),
    );
    await world.clearFaults();
    return id;
  }

  it('every hint followed verbatim ends the job, each item paid once', async () => {
    const id = await refusedThenInDoubt();
    let last = await run(['resume', id, '-y']);
    for (let step = 0; step < 4 && last.code !== 0; step++) {
      expect([3, 9], last.stderr).toContain(last.code);
      last = await run([...hinted(last.stderr), '-y']);
    }
    expect(last.code, last.stderr).toBe(0);
    expect(await world.posts()).toBe(3);
    expect([...(await world.itemCounts()).values()]).toEqual([1, 1, 1]);
  });

  it('the same with another task of the chunk’s items made meanwhile: exit 9 names both flags, and its command ends the job', async () => {
    const id = await refusedThenInDoubt();
    // Someone else (another machine: straight on the service) creates the same item while the chunk is in doubt.
    await postTask(world.sandbox, S, ['r5.example.com']);
    let last = await run(['resume', id, '-y']);
    const seen: string[] = [];
    for (let step = 0; step < 4 && last.code !== 0; step++) {
      expect([3, 9], last.stderr).toContain(last.code);
      // "--adopt 3=ID" among several candidates: the user picks one of those `taskctl show` lists.
      const candidate = /taskctl show (\d+)/.exec(last.stderr)?.[1] ?? '';
      const next = hinted(last.stderr).map((word) => word.replace(/=ID$/, `=${candidate}`));
      seen.push(next.join(' '));
      last = await run([...next, '-y']);
    }
    expect(last.code, last.stderr).toBe(0);
    expect(seen.some((command) => command.includes('--skip-refused --yes --adopt 3='))).toBe(true);
    // The two creates' chunks 1 and 2, the lost chunk 3, the other create's: nothing sent again.
    expect(await world.posts()).toBe(4);
  });

  it('the --job commands on a job every chunk of which was refused: exit 3, it has no task, never "completed"', async () => {
    const created = await run(['create', S, 'bad item here', '--no-validate', '--journal', journal(), '-y', '-q']);
    expect(created.code).toBe(3);
    const skipped = await run(['resume', journal(), '--skip-refused', '-y']);
    expect(skipped.code, skipped.stderr).toBe(0);
    for (const argv of [
      ['wait', '--job', journal()],
      ['watch', '--job', journal()],
      ['show', '--job', journal(), '-o', 'csv'],
      ['retry', '--job', journal(), '-y'],
      ['diff', journal(), journal()],
    ]) {
      const result = await run(argv);
      expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(3);
      expect(result.stdout, argv.join(' ')).toBe('');
      expect(result.stderr).toBe(
        `error: the service refused the only chunk of the job in ${journal()} (creating the task: items[0] "bad item here": contains a space): the job has no task\n` +
          'Nothing of it was created or paid for: correct its items and create them again.\n',
      );
    }
    expect(await world.posts()).toBe(1);
    // Two chunks, both refused: each --skip-refused followed as printed, then the first refusal named for both.
    const two = join(dir, 'two.jsonl');
    const argv = [
      'create',
      S,
      'bad one',
      'bad two',
      '--chunk-size',
      '1',
      '--no-validate',
      '--journal',
      two,
      '-y',
      '-q',
    ];
    expect((await run(argv)).code).toBe(3);
    expect((await run(['resume', two, '--skip-refused', '-y'])).code).toBe(3);
    expect((await run(['resume', two, '--skip-refused', '-y'])).code).toBe(0);
    const waited = await run(['wait', '--job', two]);
    expect(waited.code).toBe(3);
    expect(waited.stderr).toMatch(
      /^error: the service refused all 2 chunks of the job in .*two\.jsonl \(chunk 1: creating the task: items\[0\] "bad one": contains a space\): the job has no task\n/,
    );
    expect(await world.posts()).toBe(3);
  });

  it('a retry into its journal is refused, naming the resume that goes past the refused chunk', async () => {
    // Chunk 2 of 3 refused: chunk 3 is left to send.
    const argv = ['create', S, 'fail-1.example.com', 'r2.example.com', 'bad item here', 'r4.example.com', 'r5.com'];
    const created = await run([...argv, '--no-validate', '--chunk-size', '2', '--journal', journal(), '-y', '-q']);
    expect(created.code).toBe(3);
    const [task] = await world.tasks();
    const retry = await run(['retry', String(task?.id), '--journal', journal(), '-y']);
    expect(retry.code, retry.stderr).toBe(2);
    expect(retry.stderr).toContain(`Continue it: taskctl resume ${journal()} --skip-refused\n`);
    expect(await world.posts()).toBe(2);
  });

  it('--adopt without --skip-refused: exit 3 names both flags, and that command finishes the job', async () => {
    const id = await refusedThenInDoubt();
    const task = Math.max(...(await world.tasks()).map((t) => t.id));
    const adopt = await run(['resume', id, '--adopt', `3=${task}`, '-y']);
    expect(adopt.code).toBe(3);
    expect(hinted(adopt.stderr)).toEqual(['resume', id, '--skip-refused', '--yes', '--adopt', `3=${task}`]);
    const done = await run([...hinted(adopt.stderr), '-y', '-q']);
    expect(done.code, done.stderr).toBe(0);
    expect(await world.posts()).toBe(3);
  });
});

/**
 * One table of cases, each run through a plain `create` (its journal in the state directory), a journaled one
 * (`--journal FILE`) and one whose state directory cannot be written (no journal): all go through the one pipeline,
 * so what they print, their exit codes and the tasks they leave are the same; a job names `taskctl resume ID` when it
 * stops part-way, and a run without a journal never advises running it again.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { LISTED_IDS } from '../../../../src/core/follow/outcome.js';
import { main } from '../../../../src/main.js';
import { createMemoryStream } from '../../../../src/output/memory-io.js';
import { startSandboxWorld, stoppedInChunk2Check, worldEachTest, type World } from '../sandbox-world.js';
import { brokenStdout } from '../broken-stdout.js';
import { T0 } from '../../../clock.js';
import { runTaskctl, type RunOptions } from '../run-in-process.js';

const S = 'domain_check_availability';
const ITEMS = ['a.com', 'b.com', 'c.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-both-', (w, d) => ((world = w), (dir = d)));

type Mode = 'plain' | 'journaled' | 'unjournaled';
const MODES: Mode[] = ['plain', 'journaled', 'unjournaled'];
const journalOf = () => join(dir, 'job.jsonl');
const withMode = (mode: Mode, argv: string[]) => (mode === 'journaled' ? [...argv, '--journal', journalOf()] : argv);
const records = () =>
  existsSync(journalOf())
    ? readFileSync(journalOf(), 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { type: string; chunk?: number; task?: number | null; by?: string })
    : [];
const setBalance = async (balance: number) => {
  const response = await fetch(`${world.sandbox.origin}/__sandbox/balance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ balance }),
  });
  expect(response.status).toBe(200);
};
/** The unjournaled mode's state directory is a file: it cannot be made, so the create keeps no journal. */
const stateEnv = (mode: Mode) => {
  if (mode !== 'unjournaled') return world.env;
  writeFileSync(join(dir, 'state-file'), '');
  return { ...world.env, TASKCTL_STATE_DIR: join(dir, 'state-file') };
};
const ids = async () => (await world.tasks()).map((t) => t.id).sort((a, b) => a - b);

/** `create` in the mode, on the world's sandbox and clock, with config and caches in `dir`. */
function create(mode: Mode, argv: string[], options: Omit<RunOptions, 'env'> = {}) {
  return runTaskctl(withMode(mode, ['create', S, ...argv]), {
    env: stateEnv(mode),
    clock: world.clock,
    home: dir,
    ...options,
  });
}

const resumeHint = (mode: Mode) =>
  mode === 'unjournaled'
    ? /^(?!.*taskctl resume).*running the command again would send every item again/s
    : /Continue it with: taskctl resume j-[0-9a-z]+\n?$/;

describe.each(MODES)('%s create', (mode) => {
  it('lost stdout: no further chunk is started, every task is named, exit 14', async () => {
    const stdout = brokenStdout(1);
    const stderr = createMemoryStream();
    const argv = withMode(mode, ['create', S, 'a.com', 'b.com', 'c.com', 'd.com', '--chunk-size', '1', '-q']);
    const code = await main(argv, {
      io: {
        stdout,
        stderr,
        stdin: {
          isTTY: true,
          async *[Symbol.asyncIterator]() {
            /* a terminal that sends nothing */
          },
        },
      },
      env: {
        TASKCTL_STATE_DIR: join(dir, 's'),
        ...stateEnv(mode),
        TASKCTL_CONFIG_DIR: join(dir, 'c'),
        TASKCTL_CACHE_DIR: join(dir, 'k'),
      },
      clock: world.clock,
      signal: new AbortController().signal,
      random: () => 0.5,
    });
    const tasks = await ids();
    expect(code).toBe(14);
    expect(tasks.length).toBeLessThan(4);
    expect(stderr.text()).toMatch(
      new RegExp(
        `cannot write the output \\(the reader went away\\): created ${tasks.length} of 4 tasks: ${tasks.join(' ')}`,
      ),
    );
    expect(stderr.text()).toMatch(resumeHint(mode));
    if (mode === 'journaled') expect(records().map((r) => r.type)).not.toContain('done');
  });

  it('a failing wait: the note names the created ids and `taskctl wait`', async () => {
    // Every read of a task answers a 200 that is not JSON (exit 8, not resent; a cut-off answer would be).
    await world.fault({ method: 'GET', path: '/tasks/', kind: 'non-json', status: 200, count: 100 });
    const result = await create(mode, [...ITEMS, '--chunk-size', '2', '--wait', '-q']);
    const tasks = await ids();
    expect(tasks).toHaveLength(2);
    expect(result.code, result.stderr).toBe(8);
    // A job is named by its id, so a job of a hundred tasks is still one short command.
    const resume = mode === 'unjournaled' ? `taskctl wait ${tasks.join(' ')}` : 'taskctl wait --job j-';
    expect(result.stderr).toContain(`the tasks were created (${tasks.join(' ')}): continue with \`${resume}`);
  });

  it('a wait that ends after many tasks: how to go on is one short command (the job, or a run of ids)', async () => {
    // Tasks of a minute each (virtual time): read, and still running at the wait's 30 s deadline (124). (A 1 ms
    // deadline would race each read's own cut against the loopback answer: 0, 8 or 124 by the machine's speed.) One
    // more than a hint lists (LISTED_IDS): fewer are listed as they are.
    const own = world;
    world = await startSandboxWorld({ itemMs: 60_000 });
    try {
      const many = Array.from({ length: LISTED_IDS + 1 }, (_, i) => `d${i}.com`);
      const result = await create(mode, [...many, '--chunk-size', '1', '--wait', '--timeout', '30s', '-q']);
      const tasks = await ids();
      expect(tasks).toHaveLength(many.length);
      expect(result.code, result.stderr).toBe(124);
      const resume =
        mode === 'unjournaled' ? `taskctl wait $(seq ${tasks[0]} ${tasks.at(-1)})` : 'taskctl wait --job j-';
      expect(result.stderr).toContain(`still running: ${resume}`);
      expect(result.stderr).not.toMatch(/taskctl wait \d+ \d+/);
    } finally {
      await world.close();
      world = own;
    }
  });

  it('Ctrl-C part-way: exit 130 naming the tasks created before it', async () => {
    // The second chunk's POST is reset before it reaches the server; Ctrl-C while that is checked.
    const result = await stoppedInChunk2Check(world, (stop) =>
      create(mode, [...ITEMS, '--chunk-size', '1', '-q'], stop),
    );
    const [only] = await ids();
    expect(result.code).toBe(130);
    expect(result.stdout.trim()).toBe(String(only));
    expect(result.stderr).toMatch(new RegExp(`created 1 of 3 tasks before that: ${only}`));
    expect(result.stderr).toMatch(resumeHint(mode));
  });

  it('a job above the balance: exit 6 before any POST, naming both amounts and what the balance covers', async () => {
    await setBalance(2);
    const result = await create(mode, [...ITEMS, '--chunk-size', '2', '-y', '-q']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toContain('the estimate is 3 coins, above the balance of 2; nothing was created');
    expect(result.stderr).toContain('The balance covers 2 of the 3 items (1 whole chunk of 2).');
    expect(await ids()).toEqual([]);
    expect(records().filter((r) => r.type === 'send')).toEqual([]);
  });

  it('a refusal: nothing created for that chunk, the earlier one named; a journal records it as not created', async () => {
    // A balance for one item, and no balance to read before the first POST (the guard lets the create go on, as
    // when someone else spends meanwhile): the second chunk is refused by the service (402, exit 6).
    await setBalance(1);
    await world.fault({ method: 'GET', path: '/balance', kind: 'status', status: 503, count: 100 });
    const result = await create(mode, [...ITEMS, '--chunk-size', '1', '-q']);
    const [only] = await ids();
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(new RegExp(`created 1 of 3 tasks before that: ${only}`));
    // A job: the balance first, then the resume (alone it would be refused the same way).
    expect(result.stderr).toMatch(
      mode === 'unjournaled'
        ? resumeHint(mode)
        : /Top up the balance, then continue it: taskctl resume j-[0-9a-z]+\n?$/,
    );
    if (mode === 'unjournaled') {
      // No journal: nothing to resume, so the warning names no command.
      expect(result.stderr).toMatch(/warning: the balance could not be read \(.*the balance runs out\n/);
      return;
    }
    const id = /taskctl resume (j-[0-9a-z]+)/.exec(result.stderr)?.[1] ?? '';
    // Said once before sending: the balance is unknown, so the job may stop part-way. Not yet kept (nothing sent), the
    // job is not named: its message names the command once it has stopped part-way.
    const warned =
      result.stderr.match(
        /warning: the balance could not be read \(the service failed \(HTTP 503, internal_error: injected fault.*\n/g,
      ) ?? [];
    expect(warned, result.stderr).toEqual([
      `${warned[0]?.split(', so')[0] ?? ''}, so the 3 chunks are sent without checking it: the job may stop part-way when the balance runs out, and its message then says how to continue it\n`,
    ]);
    expect(result.stderr.indexOf(warned[0] ?? '')).toBeLessThan(result.stderr.indexOf('created 1 of 3'));
    if (mode === 'journaled')
      expect(records().at(-1)).toMatchObject({ type: 'reconciled', chunk: 2, task: null, by: 'answer' });
    await setBalance(100);
    // Nothing to settle: resume sends the two chunks left at once, and every item is in one task.
    // The printed command, verbatim.
    const resumed = await runTaskctl(['resume', id, '-q'], { env: world.env, clock: world.clock, home: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).not.toMatch(/checking the task list/);
    // The job is kept now (a chunk was sent): the warning of its resume names it.
    expect(resumed.stderr).toContain(
      `the job may stop part-way when the balance runs out; continue it then with: taskctl resume ${id}\n`,
    );
    expect(await ids()).toHaveLength(3);
  });

  it('a lost answer: the task is recovered, printed once, and counted in the summary', async () => {
    await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-after' });
    const result = await create(mode, ['a.com']);
    const [only] = await ids();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`recovered: task ${only} was created by this request`));
    expect(result.stderr).toMatch(new RegExp(`task ${only} for 1 item, 1 coin \\(recovered\\)\n`));
    if (mode === 'journaled') expect(records().map((r) => r.type)).toEqual(['job', 'send', 'created', 'done']);
  });

  it('--max-cost: exit 6 before anything is sent; a journal without a send may be started again with other options', async () => {
    const refused = await create(mode, [...ITEMS, '--chunk-size', '1', '--max-cost', '2']);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toMatch(/the estimate is 3 coins, above --max-cost 2; nothing was created/);
    expect(await ids()).toEqual([]);
    if (mode === 'journaled') expect(records().map((r) => r.type)).toEqual(['job']);
    const again = await create(mode, [...ITEMS, '--chunk-size', '2', '-q']);
    expect(again.code, again.stderr).toBe(0);
    expect(await ids()).toHaveLength(2);
  });

  it('a declined confirmation: exit 13, nothing created', async () => {
    expect((await runTaskctl(['config', 'set', 'confirm-above', '2'], { home: dir })).code).toBe(0);
    const terminal = { stdin: 'n\n', stdinTTY: true, stdoutTTY: true, stderrTTY: true };
    const result = await create(mode, [...ITEMS, '--chunk-size', '1'], terminal);
    expect(result.code).toBe(13);
    expect(result.stderr).toMatch(/Nothing was created\./);
    expect(await ids()).toEqual([]);
    if (mode === 'journaled') expect(records().map((r) => r.type)).toEqual(['job']);
  });
});

describe('create --wait: the pace of its first look, and a run stopped before the wait', () => {
  it('5 chunks, --timeout 4s, a stated 100/min: the first read goes at once after the last POST, and the run ends 0', async () => {
    const paced = await startSandboxWorld({ rateLimit: 100 });
    onTestFinished(() => paced.close());
    const items = Array.from({ length: 5 }, (_, i) => `cc${i + 1}.example.com`);
    const argv = ['create', S, ...items, '--chunk-size', '1', '-y', '--wait', '--timeout', '4s', '-q'];
    const result = await paced.run(argv, { home: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(5);
    // Virtual time: the tasks finish at once, so every sleep the run took was pacing. The even pace (0.6 s a request)
    // after 5 POSTs and their reads (12 requests) would hold the first read past the deadline; the budget (88 of 100
    // left) holds it not at all.
    expect(paced.clock.now() - T0, `sleeps: ${paced.clock.sleeps.join(' ')}`).toBeLessThan(2000);
    expect(Math.max(0, ...paced.clock.sleeps)).toBeLessThan(1000);
  });

  it.each(['tsv', 'json'])(
    'Ctrl-C part-way through the chunks (-o %s): the task created has its record on stdout, one whole document',
    async (format) => {
      // The second chunk's POST is reset before it reaches the server; Ctrl-C while that is checked.
      const result = await stoppedInChunk2Check(world, (stop) =>
        create('plain', [...ITEMS, '--chunk-size', '1', '--wait', '-o', format], stop),
      );
      const [only] = await ids();
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toMatch(new RegExp(`created 1 of 3 tasks before that: ${only}`));
      if (format === 'json') expect(JSON.parse(result.stdout)).toMatchObject([{ id: only, status: 'pending' }]);
      else expect(result.stdout).toMatch(new RegExp(`^${only}\\t${S}\\tpending\\t.*\\n$`));
    },
  );

  it('one chunk whose balance cannot be read: sent without a warning (it cannot stop part-way)', async () => {
    await world.fault({ method: 'GET', path: '/balance', kind: 'status', status: 503, count: 100 });
    const result = await create('plain', [...ITEMS, '-y', '-q']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/balance/);
  });

  it('a later chunk refused for the balance (exit 6): the tasks created before it are on stdout', async () => {
    await setBalance(1);
    await world.fault({ method: 'GET', path: '/balance', kind: 'status', status: 503, count: 100 });
    const result = await create('plain', [...ITEMS, '--chunk-size', '1', '-y', '--wait', '-o', 'ndjson']);
    const [only] = await ids();
    expect(result.code, result.stderr).toBe(6);
    const records = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number });
    expect(records.map((record) => record.id)).toEqual([only]);
  });
});

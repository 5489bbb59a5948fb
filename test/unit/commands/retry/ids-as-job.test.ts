/**
 * `retry <id...>` is a job, as every create is: its journal in the state directory (or `--journal FILE`), its id on
 * stderr, listed by `taskctl jobs`; stopped part-way it names `taskctl resume ID`, and that command run verbatim ends
 * the job with every item in exactly one task. A job holds one service: tasks of several are refused, one command per
 * service named.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stoppedInChunk2Check, worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl, type RunOptions } from '../run-in-process.js';

const S = 'domain_check_availability';
const W = 'domain_whois_history';
const FAILED = ['fail-a.com', 'fail-b.com', 'fail-c.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-retry-journal-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], options: RunOptions = {}) =>
  runTaskctl(argv, { env: world.env, clock: world.clock, home: dir, ...options });
const records = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** A finished task of `service` whose `FAILED` items failed (and one that completed): its id. */
async function failedTask(service = S, items = FAILED): Promise<string> {
  const created = await run(['create', service, 'ok.com', ...items, '-y', '-q']);
  expect(created.code, created.stderr).toBe(0);
  const id = created.stdout.trim();
  const waited = await run(['wait', id, '-q']);
  expect(waited.code, waited.stderr).toBe(11);
  return id;
}

/** The tasks other than `original`, each with its items' targets. */
async function retryTasks(original: string): Promise<string[][]> {
  const tasks = (await world.tasks()).filter((task) => String(task.id) !== original);
  return Promise.all(
    tasks.map(async ({ id }) => {
      const response = await fetch(`${world.sandbox.origin}/__sandbox/tasks/${id}`);
      const { task } = (await response.json()) as { task: { items: Array<{ target: string }> } };
      return task.items.map((item) => item.target);
    }),
  );
}

describe('retry <id...> is a job', () => {
  it('journaled in the state directory, its id on stderr, listed by `taskctl jobs` with the tasks it retries', async () => {
    const original = await failedTask();
    const retried = await run(['retry', original, '-y', '-q']);
    expect(retried.code, retried.stderr).toBe(0);
    const id = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(retried.stderr)?.[1] ?? '';
    expect(id).not.toBe('');
    const journal = join(dir, 'state', 'jobs', `${id}.jsonl`);
    expect(readdirSync(join(dir, 'state', 'jobs'))).toContain(`${id}.jsonl`);
    expect(records(journal)[0]).toMatchObject({
      type: 'job',
      id,
      service: S,
      items: FAILED.length,
      validate: false,
      retry_of: { tasks: [Number(original)], error: [] },
      // The lookup its resume makes: the default 1h, never reusing the task it retries.
      reuse_window: 3_600_000,
      not_reusable: [Number(original)],
    });
    expect(records(journal).at(-1)).toMatchObject({ type: 'done' });
    const jobs = await run(['jobs', '-o', 'json']);
    expect(jobs.code, jobs.stderr).toBe(0);
    expect(JSON.parse(jobs.stdout)).toContainEqual(expect.objectContaining({ id, state: 'finished', items: 3 }));
    expect(await retryTasks(original)).toEqual([FAILED]);
  });

  it('--journal FILE keeps it there; the prompt says Retry', async () => {
    const original = await failedTask();
    const journal = join(dir, 'retry.jsonl');
    expect((await run(['config', 'set', 'confirm-above', '1'])).code).toBe(0);
    const retried = await run(['retry', original, '--journal', journal, '-q'], {
      stdin: 'y\n',
      stdinTTY: true,
      stdoutTTY: true,
      stderrTTY: true,
    });
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stderr).toMatch(/Retry domain_check_availability for 3 items: 3 coins/);
    expect(records(journal)[0]).toMatchObject({ type: 'job', retry_of: { tasks: [Number(original)] } });
    expect(readFileSync(`${journal}.input`, 'utf8')).toBe(FAILED.map((item) => `"${item}"\n`).join(''));
  });

  it('Ctrl-C part-way: exit 130, the one next step `taskctl resume ID`; run verbatim it ends the job, each item once', async () => {
    const original = await failedTask();
    // The second chunk's POST is reset before it reaches the server; Ctrl-C while that is checked.
    const stopped = await stoppedInChunk2Check(world, (stop) =>
      run(['retry', original, '--chunk-size', '1', '-y', '-q'], stop),
    );
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stdout.trim().split('\n')).toHaveLength(1);
    const next = stopped.stderr.trim().split('\n').at(-1) ?? '';
    expect(next).toMatch(/^Continue it with: taskctl resume j-[0-9a-z]+ --yes$/);
    expect(stopped.stderr).not.toMatch(/taskctl retry|re-run|reuse-window|same command/i);
    await world.clearFaults();

    const jobs = await run(['jobs', '-o', 'json']);
    expect(JSON.parse(jobs.stdout)).toContainEqual(expect.objectContaining({ state: 'interrupted', chunks: 3 }));
    const command = next.replace(/^Continue it with: taskctl /, '').split(' ');
    const resumed = await run([...command, '-q']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const items = (await retryTasks(original)).flat();
    expect(items.sort()).toEqual([...FAILED].sort());
  });

  it('tasks of several services: exit 2 before anything is sent, one command per service; run verbatim, each item once', async () => {
    const a = await failedTask(S, ['fail-a.com']);
    const b = await failedTask(W, ['fail-w.com']);
    const c = await failedTask(S, ['fail-a.com', 'fail-c.com']);
    const posts = await world.posts();
    const refused = await run(['retry', a, b, c, '-y', '-q']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`tasks ${a}, ${c} (${S}) and task ${b} (${W}) leave items of 2 services`);
    expect(await world.posts()).toBe(posts);
    const hint = /with the same options: (.*)$/m.exec(refused.stderr)?.[1] ?? '';
    expect(hint).toBe(`taskctl retry ${a} ${c}; taskctl retry ${b}`);
    for (const command of hint.split('; ')) {
      const result = await run([...command.replace(/^taskctl /, '').split(' '), '-y', '-q']);
      expect(result.code, result.stderr).toBe(0);
    }
    const retried = (await retryTasks('')).slice(3);
    expect(retried).toEqual([['fail-a.com', 'fail-c.com'], ['fail-w.com']]);
  });
});

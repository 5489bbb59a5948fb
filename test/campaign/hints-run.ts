/**
 * `npm run campaign` (third part): a person who follows the printed advice. Each round starts a real sandbox
 * process whose POSTs are held a random time, runs a chunked `create` without `--journal`, stops it at a random
 * instant with SIGINT, SIGTERM or SIGKILL, then does what it printed last, verbatim, as a new process in real time:
 * "Continue it with: taskctl …" runs that command, "Re-run the same command" runs the create again; after a stop that
 * printed nothing (SIGKILL, or a signal before taskctl could handle it) `taskctl resume` when `taskctl jobs` lists an
 * interrupted job (docs/behaviour.md#jobs), else the same command. It follows the next run's advice the same way. At the end every item must be in exactly one
 * task of the sandbox, and the job finished. Exit 1 on any violation.
 *
 *   tsx test/campaign/hints-run.ts [rounds] [seed]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generator } from '../seeded.js';

const BIN = fileURLToPath(new URL('../../bin/taskctl.js', import.meta.url));
const rounds = Number(process.argv[2] ?? 12);
const seed = Number(process.argv[3] ?? Date.now() % 1_000_000);
const S = 'domain_check_availability';

/** The campaign's instants and holds, from its seed. */
const rand = generator(seed);

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function start(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (text: string) => (out.stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (out.stderr += text));
  const closed = new Promise<Run>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, ...out })));
  return { child, out, closed };
}

async function admin<T>(base: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(
    `${base}${path}`,
    body === undefined
      ? { method }
      : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  return (await response.json()) as T;
}

const outcome = (run: Run) => (run.signal ? `killed by ${run.signal}` : `exit ${run.code}`);

/**
 * What a person does next: the command the run printed last; the same command again where it says so; after a stop
 * that printed nothing (SIGKILL, or a signal before the process could handle it) `taskctl resume` when a job is
 * interrupted, else the same command. `undefined`: the same command.
 */
function nextStep(run: Run, interrupted: number): string[] | undefined {
  const lastLine = run.stderr.trim().split('\n').at(-1) ?? '';
  const printed = /^Continue it with: taskctl (.+)$/.exec(lastLine)?.[1];
  if (printed) return printed.split(' ');
  if (lastLine.startsWith('Re-run the same command')) return undefined;
  if (run.signal === null && run.code !== 130 && run.code !== 143) {
    throw new Error(`no next step after ${outcome(run)}: ${run.stderr}`);
  }
  return interrupted > 0 ? ['resume'] : undefined;
}

async function interruptedJobs(env: NodeJS.ProcessEnv): Promise<number> {
  return (await jobStates(env)).filter((state) => state === 'interrupted').length;
}

async function jobStates(env: NodeJS.ProcessEnv): Promise<string[]> {
  const listed = JSON.parse((await start(['jobs', '-o', 'json'], env).closed).stdout || '[]') as Array<{
    state: string;
  }>;
  return listed.map((job) => job.state);
}

async function round(index: number): Promise<string | undefined> {
  const home = mkdtempSync(join(tmpdir(), 'taskctl-hints-'));
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TASKCTL_CONFIG_DIR: join(home, 'config'),
    TASKCTL_CACHE_DIR: join(home, 'cache'),
    TASKCTL_STATE_DIR: join(home, 'state'),
  };
  const sandbox = start(['sandbox', '--port', '0', '--item-ms', '0', '--rate-limit', '0'], env);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const match = /export TASKCTL_BASE_URL=(\S+)/.exec(sandbox.out.stdout);
        if (match?.[1]) {
          clearInterval(timer);
          resolve(match[1]);
        }
      }, 20);
      void sandbox.closed.then((r) => reject(new Error(`the sandbox stopped: ${r.stderr}`)));
    });
    const base = url.replace(/\/api\/v1$/, '');
    const client = { ...env, TASKCTL_BASE_URL: url, TASKCTL_API_KEY: 'sk_sandbox_0000' };
    const holdMs = Math.round(rand() * 1500);
    await admin(base, 'POST', '/__sandbox/faults', {
      method: 'POST',
      path: '/tasks',
      kind: 'delay',
      delayMs: holdMs,
      count: 1000,
    });
    // Now and then the price is slow too: a stop before anything is sent.
    if (rand() < 0.3) {
      await admin(base, 'POST', '/__sandbox/faults', {
        method: 'GET',
        path: '/services',
        kind: 'delay',
        delayMs: 1000,
      });
    }
    const items = Array.from({ length: 10 }, (_, i) => `r${index}-${i}.example.com`);
    const input = join(home, 'in.txt');
    writeFileSync(input, `${items.join('\n')}\n`);
    const signal = (['SIGINT', 'SIGTERM', 'SIGKILL'] as const)[Math.floor(rand() * 3)] ?? 'SIGINT';
    // The stop comes a random time after the sandbox has received a random number of requests (0 to 4 POSTs, or only
    // the first request), so it lands at the same steps of the run however slowly this machine starts a process.
    const afterPosts = Math.floor(rand() * 5);
    const stopAfterMs = Math.round(rand() * (holdMs + 300));
    const createArgs = ['create', S, '-f', input, '--chunk-size', '2', '--request-timeout', '3s', '-q'];
    const create = start(createArgs, client);
    let timer: NodeJS.Timeout | undefined;
    const watching = setInterval(() => {
      void admin<{ requests: Record<string, number> }>(base, 'GET', '/__sandbox/stats').then(
        ({ requests }) => {
          const seen = afterPosts === 0 ? requests['GET /api/v1/services'] : requests['POST /api/v1/tasks'];
          if (timer === undefined && (seen ?? 0) >= Math.max(1, afterPosts)) {
            clearInterval(watching);
            timer = setTimeout(() => create.child.kill(signal), stopAfterMs);
          }
        },
        () => undefined, // a probe that failed: the next one asks again
      );
    }, 10);
    let last = await create.closed;
    clearInterval(watching);
    clearTimeout(timer);
    const when = afterPosts === 0 ? 'the first request' : `POST ${afterPosts}`;
    const steps = [`hold ${holdMs} ms, ${signal} ${stopAfterMs} ms after ${when}: ${outcome(last)}`];
    let done = false;
    for (let step = 0; step < 5 && last.code !== 0; step++) {
      // Stopped by a signal as it ended (the ids all printed, the job finished): a person sees it done in `taskctl
      // jobs`, and runs nothing again (the same plain create would buy the items afresh, as it should).
      const states = await jobStates(client);
      if (last.signal !== null && states.length > 0 && states.every((state) => state === 'finished')) {
        steps.push('taskctl jobs: the job finished, nothing to run again');
        done = true;
        break;
      }
      const next = nextStep(last, states.filter((state) => state === 'interrupted').length);
      last = await start(next ?? createArgs, client).closed;
      steps.push(`taskctl ${next ? next.join(' ') : 'create … (the same command)'}: ${outcome(last)}`);
    }
    const state = await admin<{ tasks: Array<{ id: number }> }>(base, 'GET', '/__sandbox/state');
    const counts = new Map<string, number>();
    for (const { id } of state.tasks) {
      const { task } = await admin<{ task: { items: Array<{ target: string }> } }>(
        base,
        'GET',
        `/__sandbox/tasks/${id}`,
      );
      for (const item of task.items) counts.set(item.target, (counts.get(item.target) ?? 0) + 1);
    }
    const twice = [...counts].filter(([, n]) => n > 1).map(([item]) => item);
    const missing = items.filter((item) => !counts.has(item));
    const unfinished = await interruptedJobs(client);
    console.log(`round ${index}: ${steps.join('; ')}`);
    if (twice.length > 0 || missing.length > 0 || unfinished > 0 || (last.code !== 0 && !done)) {
      return `round ${index}: ${twice.length} items in two tasks, ${missing.length} missing, ${unfinished} jobs interrupted, last ${outcome(last)}\n${last.stderr}`;
    }
    return undefined;
  } finally {
    sandbox.child.kill('SIGINT');
    await sandbox.closed;
    rmSync(home, { recursive: true, force: true });
  }
}

const started = Date.now();
const violations: string[] = [];
for (let i = 1; i <= rounds; i++) {
  const violation = await round(i);
  if (violation) violations.push(violation);
}
console.log(
  `hints campaign: ${rounds} rounds, seed ${seed}, ${Math.round((Date.now() - started) / 1000)} s, ${violations.length} violations`,
);
for (const v of violations) console.log(v);
process.exitCode = violations.length > 0 ? 1 : 0;

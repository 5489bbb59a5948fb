/**
 * `npm run soak -- --minutes N`: taskctl run for a long time against a lasting sandbox, as docs/performance.md#soak
 * describes: creates every few seconds, `watch --follow`, a long `wait`, `webhook listen` forwarding to a small app
 * (a node:http server here, counting deliveries), pauses of the sandbox (SIGSTOP/SIGCONT) and one sandbox restart
 * on its state file. At the end: per process, RSS and open descriptors at the start and the end (from /proc), events
 * sent (sandbox), acknowledged (listen) and received (app), exit codes, and whether watch, wait and listen were alive.
 * Needs `npm run build` first (or `--bin` naming a built bin/taskctl.js). Stops by itself and kills all it started.
 * It explains itself: a timeline of what it did to the sandbox (pauses, the restart and how long its stop and start
 * took) goes to stdout as it happens, and a process that ends before the soak stops it is named at once with its exit
 * code and the last lines of its stderr; the work directory is then kept (as with SOAK_KEEP=1).
 *
 *   npm run soak -- --minutes 20 [--every 3] [--bin bin/taskctl.js]
 *     [--long-items N] [--item-ms 200] [--pause-every 4] [--pause-seconds 20] [--restart-at MIN] [--busy N]
 *     [--wait-verbose]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '20' },
    every: { type: 'string', default: '3' },
    bin: { type: 'string', default: 'bin/taskctl.js' },
    /** Items of the long task `wait` follows; default: 1.5 × what the run's length processes at --item-ms. */
    'long-items': { type: 'string' },
    'item-ms': { type: 'string', default: '200' },
    /** Minutes between two SIGSTOP pauses of the sandbox (the first comes after a minute); 0: none. */
    'pause-every': { type: 'string', default: '4' },
    'pause-seconds': { type: 'string', default: '20' },
    /** Minutes into the run of the sandbox's restart; default half-way; 0: none. */
    'restart-at': { type: 'string' },
    /** CPU-bound processes kept running beside the soak, to load the machine (`yes > /dev/null` each). */
    busy: { type: 'string', default: '0' },
    /** `wait --verbose`: its stderr then holds every request and how long each answer took. */
    'wait-verbose': { type: 'boolean', default: false },
  },
});
const minutes = Number(values.minutes);
const everyMs = Number(values.every) * 1000;
if (!(minutes > 0) || !(everyMs > 0)) throw new Error('--minutes and --every take positive numbers');
const ITEM_MS = Number(values['item-ms']);
const pauseEveryMs = Number(values['pause-every']) * 60_000;
const pauseMs = Number(values['pause-seconds']) * 1000;
const restartAtMs = values['restart-at'] === undefined ? (minutes * 60_000) / 2 : Number(values['restart-at']) * 60_000;
const longItems =
  values['long-items'] === undefined ? Math.ceil(((minutes * 60_000) / ITEM_MS) * 1.5) : Number(values['long-items']);
const busy = Number(values.busy);
for (const [name, value] of Object.entries({ ITEM_MS, pauseEveryMs, pauseMs, restartAtMs, longItems, busy }))
  if (!(value >= 0) || !Number.isFinite(value)) throw new Error(`soak: ${name} takes a number ≥ 0`);
const bin = resolve(values.bin);
const dir = mkdtempSync(join(tmpdir(), 'taskctl-soak-'));
const env: Record<string, string | undefined> = {
  ...process.env,
  TASKCTL_CONFIG_DIR: join(dir, 'config'),
  TASKCTL_CACHE_DIR: join(dir, 'cache'),
  TASKCTL_PROFILE: undefined,
};

interface Sample {
  rssMb: number;
  fds: number;
}
interface Proc {
  name: string;
  child: ChildProcess;
  exit: Promise<number | string>;
  exited: boolean;
  start?: Sample | undefined;
  end?: Sample | undefined;
  /** The soak asked it to stop (SIGINT), so its end is not news. */
  stopping: boolean;
  /** How it ended when it ended by itself: the time into the run, the exit code, the last lines of its stderr. */
  died?: { atMs: number; code: number | string; lastLines: string[] } | undefined;
}
const procs: Proc[] = [];
const startedAt = Date.now();
/** Anything started ended by itself: the work directory is kept for its logs. */
let somethingDied = false;

/** `+12:34` into the run. */
function clock(ms = Date.now() - startedAt): string {
  const s = Math.floor(ms / 1000);
  return `+${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** One line of the soak's timeline, on stdout as it happens and in soak.log. */
function note(text: string): void {
  const line = `${new Date().toISOString()} ${clock()} ${text}`;
  console.log(line);
  try {
    writeFileSync(join(dir, 'soak.log'), `${line}\n`, { flag: 'a' });
  } catch {
    // the directory is gone (clean-up): stdout has it
  }
}

/** The last `count` lines of a file of the work directory. */
function tail(file: string, count = 20): string[] {
  try {
    return readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean).slice(-count);
  } catch {
    return [];
  }
}

function sample(pid: number | undefined): Sample | undefined {
  if (pid === undefined) return undefined;
  try {
    const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return { rssMb: Math.round(Number(rss) / 102.4) / 10, fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    return undefined;
  }
}

/** Starts `taskctl args`, its stdout and stderr to files in the soak's directory. */
function start(name: string, args: string[], extraEnv: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(createWriteStream(join(dir, `${name}.out`)));
  child.stderr.pipe(createWriteStream(join(dir, `${name}.err`)));
  const stderrDone = new Promise<void>((done) => child.stderr.on('end', done));
  const proc: Proc = {
    name,
    child,
    exited: false,
    stopping: false,
    exit: new Promise((done) => {
      child.on('exit', (code, signal) => {
        proc.exited = true;
        const result = code ?? signal ?? 'unknown';
        if (!proc.stopping) {
          somethingDied = true;
          // Its stderr is read to the end (or for a second at most) before its last lines are taken.
          void Promise.race([stderrDone, sleep(1000)]).then(() => {
            proc.died = { atMs: Date.now() - startedAt, code: result, lastLines: tail(`${name}.err`) };
            note(`${name} ended by itself with exit ${String(result)}; the last lines of its stderr:`);
            for (const line of proc.died.lastLines) console.log(`    ${line}`);
          });
        }
        done(result);
      });
    }),
  };
  procs.push(proc);
  return proc;
}

/** Runs `taskctl args` to its end (at most `limitMs`); its exit code and stdout. */
async function run(
  args: string[],
  limitMs = 60_000,
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  const code = await new Promise<number | string>((done) =>
    child.on('exit', (c, s) => {
      done(c ?? s ?? 'unknown');
    }),
  );
  clearTimeout(timer);
  return { code, stdout, stderr };
}

async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  limitMs = 20_000,
): Promise<T> {
  const end = Date.now() + limitMs;
  while (Date.now() < end) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(100);
  }
  throw new Error(`soak: ${what} did not happen within ${limitMs / 1000} s`);
}

async function startSandbox(port: number, stateFile: string, items: number): Promise<{ proc: Proc; origin: string }> {
  const name = procs.some((p) => p.name.startsWith('sandbox')) ? 'sandbox-2' : 'sandbox-1';
  const began = Date.now();
  const proc = start(name, [
    'sandbox',
    ...['--port', String(port), '--state', stateFile, '--item-ms', String(ITEM_MS)],
    ...['--rate-limit', '0', '--balance', '100000000', '--max-items', String(items)],
  ]);
  const url = await until(
    `${name} start`,
    () => {
      if (proc.exited) throw new Error(`soak: ${name} ended before it listened: ${tail(`${name}.err`, 5).join(' | ')}`);
      try {
        return /TASKCTL_BASE_URL=(\S+)/.exec(readFileSync(join(dir, `${name}.out`), 'utf8'))?.[1];
      } catch {
        return undefined;
      }
    },
    // A minute: on a loaded machine a start on the state file took 9 s at load 8 (2 s when idle).
    60_000,
  );
  note(`${name} listening after ${((Date.now() - began) / 1000).toFixed(1)} s`);
  return { proc, origin: new URL(url).origin };
}

/** Deliveries by state, as the sandbox's admin API lists them (it keeps the latest 5,000). */
async function deliveries(origin: string): Promise<Record<string, number>> {
  const response = await fetch(`${origin}/__sandbox/deliveries`);
  const body = (await response.json()) as { deliveries: Array<{ state: string; test?: boolean }> };
  const counts: Record<string, number> = {};
  for (const d of body.deliveries) if (!d.test) counts[d.state] = (counts[d.state] ?? 0) + 1;
  return counts;
}

function startApp(): Promise<{ port: number; received: () => { total: number; unique: number }; close: () => void }> {
  let total = 0;
  const ids = new Set<string>();
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      total++;
      try {
        const event = JSON.parse(body) as { event?: string; task?: { id?: number } };
        ids.add(`${event.event}:${event.task?.id}`);
      } catch {
        // counted in total only
      }
      response.end('ok');
    });
  });
  return new Promise((done) => {
    server.listen(0, '127.0.0.1', () => {
      done({
        port: (server.address() as AddressInfo).port,
        received: () => ({ total, unique: ids.size }),
        close: () => server.close(),
      });
    });
  });
}

function lines(name: string): number {
  try {
    return readFileSync(join(dir, `${name}.out`), 'utf8')
      .split('\n')
      .filter(Boolean).length;
  } catch {
    return 0;
  }
}

/** Stops `proc` with SIGINT (a requested stop), SIGKILL after 15 s; its exit code. */
async function stop(proc: Proc): Promise<number | string> {
  proc.stopping = !proc.exited;
  if (!proc.exited) proc.child.kill('SIGINT');
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), 15_000);
  const code = await proc.exit;
  clearTimeout(timer);
  return code;
}

async function soak(): Promise<void> {
  const endAt = Date.now() + minutes * 60_000;
  const stateFile = join(dir, 'sandbox.state');
  note(
    `soak for ${minutes} min: long task of ${longItems} items at ${ITEM_MS} ms, pauses of ${pauseMs / 1000} s ` +
      `every ${pauseEveryMs / 60_000} min, restart at ${restartAtMs > 0 ? clock(restartAtMs) : 'none'}, ` +
      `${busy} busy processes; work dir ${dir}`,
  );
  for (let i = 0; i < busy; i++) startBusy();
  let { proc: sandbox, origin } = await startSandbox(0, stateFile, Math.max(10_000, longItems));
  const port = Number(new URL(origin).port);
  const base = { TASKCTL_BASE_URL: `${origin}/api/v1`, TASKCTL_API_KEY: 'sk_sandbox_0000' };
  Object.assign(env, base);
  const app = await startApp();

  const longId = await createLong(longItems);
  const listen = start('listen', [
    'webhook',
    'listen',
    '--port',
    '0',
    '-o',
    'ndjson',
    '--forward-to',
    `http://127.0.0.1:${app.port}/hooks`,
  ]);
  await until('listen wired', async () => {
    const state = (await (await fetch(`${origin}/__sandbox/state?tasks=false`)).json()) as {
      webhookUrl: string | null;
    };
    return state.webhookUrl ?? undefined;
  });
  const watch = start('watch', ['watch', '--follow', '-o', 'tsv']);
  const waitArgs = ['wait', longId, '--timeout', `${Math.ceil(minutes * 3)}m`];
  const wait = start('wait', values['wait-verbose'] ? [...waitArgs, '--verbose'] : waitArgs);
  await sleep(5000);
  for (const p of procs) p.start = sample(p.child.pid);

  const creates = { ok: 0, failed: 0, codes: {} as Record<string, number> };
  const sent: Record<string, number> = {};
  const pauses = { count: 0, ms: 0 };
  const codes: Record<string, number | string> = {};
  const restartAt = startedAt + restartAtMs;
  let restarted = restartAtMs === 0;
  let nextPause = pauseEveryMs > 0 && pauseMs > 0 ? Date.now() + 60_000 : Infinity;
  for (let n = 1; Date.now() < endAt; n++) {
    const created = await run(['create', 'domain_check_availability', `soak-${n}.example.com`, '--yes', '-q']);
    creates.codes[String(created.code)] = (creates.codes[String(created.code)] ?? 0) + 1;
    if (created.code === 0) creates.ok++;
    else {
      creates.failed++;
      note(`create ${n} exit ${String(created.code)}: ${created.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    }
    if (Date.now() >= nextPause && Date.now() < endAt - 30_000) {
      // A pause: the sandbox answers nothing for 20 s, well within the 2 min outage tolerance.
      note(`pause: SIGSTOP of ${sandbox.name} for ${pauseMs / 1000} s`);
      sandbox.child.kill('SIGSTOP');
      await sleep(pauseMs);
      sandbox.child.kill('SIGCONT');
      note(`pause: SIGCONT of ${sandbox.name}`);
      pauses.count++;
      pauses.ms += pauseMs;
      nextPause = Date.now() + pauseEveryMs;
    }
    if (!restarted && Date.now() >= restartAt) {
      restarted = true;
      await settle(origin);
      add(sent, await deliveries(origin));
      sandbox.end = sample(sandbox.child.pid);
      note(`restart: SIGINT to ${sandbox.name}`);
      const stopping = Date.now();
      codes[sandbox.name] = await stop(sandbox);
      note(
        `restart: ${sandbox.name} ended (exit ${String(codes[sandbox.name])}) after ${((Date.now() - stopping) / 1000).toFixed(1)} s`,
      );
      ({ proc: sandbox, origin } = await startSandbox(port, stateFile, Math.max(10_000, longItems)));
      await sleep(2000);
      sandbox.start = sample(sandbox.child.pid);
    }
    await sleep(everyMs);
  }

  await settle(origin);
  add(sent, await deliveries(origin));
  const alive = { watch: !watch.exited, wait: !wait.exited, listen: !listen.exited };
  for (const p of procs) if (!p.exited) p.end = sample(p.child.pid);
  for (const p of [watch, wait, listen]) codes[p.name] = await stop(p);
  codes[sandbox.name] = await stop(sandbox);
  app.close();
  report({
    creates,
    sent,
    pauses,
    restarted: restartAtMs > 0,
    alive,
    codes,
    received: app.received(),
    acknowledged: lines('listen'),
    longId,
  });

  async function createLong(items: number): Promise<string> {
    const list = join(dir, 'long.txt');
    writeFileSync(list, Array.from({ length: items }, (_, i) => `long-${i}.example.com\n`).join(''));
    const created = await run(['create', 'domain_check_availability', '-f', list, '--yes', '-q']);
    const id = created.stdout.trim();
    if (created.code !== 0 || !/^\d+$/.test(id))
      throw new Error(`soak: the long task was not created (exit ${created.code})`);
    return id;
  }
}

/** Waits (at most 60 s) until no delivery is sending or retrying. */
async function settle(origin: string): Promise<void> {
  await until(
    'deliveries settled',
    async () => {
      const counts = await deliveries(origin);
      return (counts.sending ?? 0) + (counts.retrying ?? 0) === 0 ? true : undefined;
    },
    60_000,
  ).catch(() => undefined);
}

function add(into: Record<string, number>, counts: Record<string, number>): void {
  for (const [key, value] of Object.entries(counts)) into[key] = (into[key] ?? 0) + value;
}

function report(r: {
  creates: { ok: number; failed: number; codes: Record<string, number> };
  sent: Record<string, number>;
  pauses: { count: number; ms: number };
  restarted: boolean;
  alive: Record<string, boolean>;
  codes: Record<string, number | string>;
  received: { total: number; unique: number };
  acknowledged: number;
  longId: string;
}): void {
  const out = (text: string) => console.log(text);
  out(`soak: ${minutes} min, a create every ${everyMs / 1000} s, work dir ${dir}`);
  out(`creates: ${r.creates.ok} ok, ${r.creates.failed} failed (exit codes ${JSON.stringify(r.creates.codes)})`);
  out(`long task: ${longItems} items at ${ITEM_MS} ms`);
  out(
    `pauses (SIGSTOP/SIGCONT of the sandbox): ${r.pauses.count}, ${r.pauses.ms / 1000} s in all; ` +
      (r.restarted ? 'one restart' : 'no restart'),
  );
  const sent = Object.values(r.sent).reduce((a, b) => a + b, 0);
  out(`webhook events: sent ${sent} (${JSON.stringify(r.sent)}), acknowledged by listen ${r.acknowledged},`);
  out(`  received by the app ${r.received.total} (${r.received.unique} distinct event+task)`);
  out(`watch printed ${lines('watch')} changes; wait followed task ${r.longId}`);
  out(
    `alive at the end: ${Object.entries(r.alive)
      .map(([k, v]) => `${k} ${v ? 'yes' : 'NO'}`)
      .join(', ')}`,
  );
  out('process     RSS MB start → end   fds start → end   exit');
  for (const p of procs) {
    if (p.name.startsWith('busy')) continue;
    const f = (s: Sample | undefined, key: keyof Sample) => (s ? String(s[key]) : '-');
    const code = r.codes[p.name] ?? '-';
    out(
      `${p.name.padEnd(11)} ${f(p.start, 'rssMb').padStart(6)} → ${f(p.end, 'rssMb').padEnd(8)} ` +
        `${f(p.start, 'fds').padStart(5)} → ${f(p.end, 'fds').padEnd(8)} ${String(code)}`,
    );
  }
  for (const p of procs) {
    if (!p.died) continue;
    out(`${p.name} ended by itself at ${clock(p.died.atMs)} with exit ${String(p.died.code)}; its last stderr lines:`);
    for (const line of p.died.lastLines) out(`    ${line}`);
  }
}

/** A CPU-bound process beside the soak (a loaded machine), killed with the rest at the end. */
function startBusy(): void {
  const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  const proc: Proc = {
    name: `busy-${procs.filter((p) => p.name.startsWith('busy')).length + 1}`,
    child,
    exited: false,
    stopping: false,
    exit: new Promise((done) => child.on('exit', (code, signal) => done(code ?? signal ?? 'unknown'))),
  };
  void proc.exit.then(() => (proc.exited = true));
  procs.push(proc);
}

/** Kills whatever is still running (an error half-way included) and removes the work directory unless kept. */
async function cleanUp(): Promise<void> {
  for (const p of procs) {
    if (p.exited) continue;
    p.stopping = true;
    p.child.kill('SIGCONT');
    p.child.kill('SIGKILL');
    await p.exit;
  }
  if (somethingDied) console.log(`soak: a process ended by itself; its logs are kept in ${dir}`);
  else if (!process.env.SOAK_KEEP) rmSync(dir, { recursive: true, force: true });
}

try {
  await soak();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
} finally {
  await cleanUp();
}

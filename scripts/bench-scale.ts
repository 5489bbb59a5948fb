// The large-job figures of docs/performance.md for `npm run bench` (section `scale`), called by scripts/bench.ts:
// 1. `create --dry-run` of 10,000,000 lines: wall time and peak RSS, beside `jq -R . | jq -s .` on the same file;
// 2. a real chunked create of those 10,000,000 lines (1,000 tasks of 10,000) against the sandbox: peak RSS;
// 3. `list --all` over 10,000 tasks from a sandbox without rate-limit headers, beside a curl + jq loop over the same
//    pages; and against a sandbox with its 100/min limit: requests, 429s, time over the minimum the limit allows;
// 4. the sandbox (its own process, `--state`) holding 200,000 one-item tasks: RSS, and GET /balance latency while
//    creates are being saved.
// One run each (the 10M rows take minutes on a shared 2-core machine); generated files stay in .bench/.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, createWriteStream, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ScaleBenchTools {
  row: (figure: string, result: string, baseline?: string, ratio?: string, target?: string, ok?: boolean) => void;
  skip: (figure: string, why: string) => void;
  log: (line: string) => void;
  notes: string[];
  run: (
    command: string,
    args: string[],
    options: { env?: Record<string, string | undefined>; timeoutMs?: number; input?: string },
  ) => Promise<{ code: number | null; stdout: string; stderr: string; wallMs: number }>;
  hasTool: (cmd: string, args?: string[]) => Promise<boolean>;
  NODE: string;
  BIN: string;
  ROOT: string;
  WORK: string;
  cliEnv: (extra?: Record<string, string>) => Record<string, string>;
  loadSandbox: () => Promise<typeof import('../src/sandbox/index.ts')>;
  /** VmRSS and VmHWM (KB) of a process. */
  rssOf: (pid: number) => { rssKb: number; hwmKb: number };
}

const LINES = 10_000_000;
const mb = (kb: number): string => `${Math.round(kb / 1024)} MB`;
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

async function bigFile(WORK: string): Promise<string> {
  const file = join(WORK, `domains-${LINES}.txt`);
  if (existsSync(file) && statSync(file).size > 0) return file;
  const out = createWriteStream(file);
  for (let i = 0; i < LINES; i += 10_000) {
    let text = '';
    for (let j = i; j < i + 10_000; j++) text += `host-${j.toString(36)}.example-${j % 97}.com\n`;
    if (!out.write(text)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return file;
}

/** A state file of `count` one-item tasks (what `--state` loads), written without a sandbox creating them one by one. */
function stateFile(path: string, count: number): void {
  const now = Date.now() - 3_600_000;
  const out: string[] = [];
  for (let i = 1; i <= count; i++) {
    out.push(
      JSON.stringify({
        id: i,
        service: 'domain_check_availability',
        items: [`t${i}.example.com`],
        cost: 1,
        createdAt: now + i,
        startAt: now + i,
        itemMs: 0,
      }),
    );
  }
  const account = {
    balance: 100_000_000,
    apiKey: 'sk_sandbox_0000',
    keyRotations: 0,
    nextId: count + 1,
    webhookUrl: null,
  };
  writeFileSync(path, `${JSON.stringify({ version: 1, ...account, tasks: [] }).slice(0, -2)}${out.join(',')}]}\n`);
}

export async function benchScale(tools: ScaleBenchTools): Promise<void> {
  const { row, skip, log, notes, run, hasTool, NODE, BIN, WORK, cliEnv, loadSandbox } = tools;
  const haveTime = await hasTool('/usr/bin/time', ['-f', '%M', 'true']);
  const haveJq = await hasTool('jq');
  const haveCurl = await hasTool('curl');
  const { startSandbox } = await loadSandbox();
  const rssFile = join(WORK, 'maxrss-scale.txt');
  const timed = async (script: string, args: string[], env: Record<string, string>) => {
    rmSync(rssFile, { force: true });
    const result = await run('/usr/bin/time', ['-f', '%M', '-o', rssFile, 'sh', '-c', script, 'sh', ...args], {
      env,
      timeoutMs: 900_000,
    });
    const rssKb = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()) : NaN;
    return { ...result, rssKb };
  };

  // 1 and 2: ten million lines.
  if (!haveTime) skip('10,000,000 lines', '/usr/bin/time not found');
  else {
    log('  10,000,000-line file');
    const file = await bigFile(WORK);
    const sandbox = await startSandbox({ port: 0, rateLimit: 0, itemMs: 0, balance: 100_000_000 });
    try {
      const env = cliEnv({ TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey });
      log('  create --dry-run of 10,000,000 lines');
      const dry = await timed(
        '"$1" "$2" create domain_check_availability -f "$3" --dry-run --chunk-size 10000 -o json',
        [NODE, BIN, file],
        env,
      );
      if (dry.code !== 0) throw new Error(`dry run exited ${String(dry.code)}: ${dry.stderr.slice(0, 300)}`);
      let jq: { wallMs: number; rssKb: number } | undefined;
      if (haveJq) {
        log('  jq -R . | jq -s . of the same file');
        jq = await timed('jq -R . "$1" | jq -s . > /dev/null', [file], { ...process.env } as Record<string, string>);
      }
      row(
        '`create --dry-run`, 10,000,000 lines: wall time',
        secs(dry.wallMs),
        jq ? `jq ${secs(jq.wallMs)}` : '',
        jq ? `${(dry.wallMs / jq.wallMs).toFixed(2)}×` : '',
      );
      row(
        '`create --dry-run`, 10,000,000 lines: peak RSS',
        mb(dry.rssKb),
        jq ? `jq ${mb(jq.rssKb)}` : '',
        jq ? `${(dry.rssKb / jq.rssKb).toFixed(2)}×` : '',
        '≤ 300 MB',
        dry.rssKb <= 300 * 1024,
      );
      log('  create of 10,000,000 lines in 1,000 chunks');
      const real = await timed(
        '"$1" "$2" create domain_check_availability -f "$3" --chunk-size 10000 -y -q > /dev/null',
        [NODE, BIN, file],
        env,
      );
      if (real.code !== 0) throw new Error(`chunked create exited ${String(real.code)}: ${real.stderr.slice(0, 300)}`);
      row(
        '`create --chunk-size 10000`, 10,000,000 lines, against the sandbox: peak RSS',
        `${mb(real.rssKb)} (${secs(real.wallMs)})`,
        '',
        '',
        '≤ 300 MB',
        real.rssKb <= 300 * 1024,
      );
      notes.push(
        'scale: 10,000,000 lines of ~25 bytes (`host-<n>.example-<n%97>.com`); dry run and chunked create by file (`-f`), one run each, peak RSS by /usr/bin/time; jq is `jq -R . FILE | jq -s .` (the larger process of the pipeline); the sandbox runs in the bench process (rate limit off, instant items)',
      );
    } finally {
      await sandbox.close();
    }
  }

  // 3: list --all over 10,000 tasks.
  const tasksState = join(WORK, 'state-10000.json');
  stateFile(tasksState, 10_000);
  copyFileSync(tasksState, join(WORK, 'state-10000-limited.json'));
  rmSync(join(WORK, 'state-10000-limited.json.journal'), { force: true });
  const open = await startSandbox({ port: 0, rateLimit: 0, itemMs: 0, stateFile: tasksState });
  try {
    const env = cliEnv({ TASKCTL_BASE_URL: open.url, TASKCTL_API_KEY: open.apiKey });
    const list = await run(NODE, [BIN, 'list', '--all', '-o', 'ndjson'], { env, timeoutMs: 300_000 });
    const lines = list.stdout.trim().split('\n').length;
    if (list.code !== 0 || lines !== 10_000) throw new Error(`list --all: exit ${String(list.code)}, ${lines} lines`);
    if (haveCurl && haveJq) {
      const loop = await run(
        'sh',
        [
          '-c',
          'for p in $(seq 1 100); do curl -s -H "X-API-Key: $2" "$1/tasks?page=$p&per_page=100" | jq -c ".data[]"; done | wc -l',
          'sh',
          open.url,
          open.apiKey,
        ],
        { env: { ...process.env }, timeoutMs: 300_000 },
      );
      const ratio = list.wallMs / loop.wallMs;
      row(
        '`list --all`, 10,000 tasks, no rate-limit headers: wall time',
        secs(list.wallMs),
        `curl + jq ${secs(loop.wallMs)} (${loop.stdout.trim()} rows)`,
        `${ratio.toFixed(2)}×`,
        '≤ 2.5× curl + jq',
        ratio <= 2.5,
      );
    } else skip('`list --all` vs curl + jq', 'curl or jq not found');
  } finally {
    await open.close();
  }
  const limited = await startSandbox({
    port: 0,
    rateLimit: 100,
    itemMs: 0,
    stateFile: join(WORK, 'state-10000-limited.json'),
  });
  try {
    await fetch(`${limited.origin}/__sandbox/stats/reset`, { method: 'POST' });
    const env = cliEnv({ TASKCTL_BASE_URL: limited.url, TASKCTL_API_KEY: limited.apiKey });
    const list = await run(NODE, [BIN, 'list', '--all', '-o', 'ndjson'], { env, timeoutMs: 300_000 });
    const stats = (await (await fetch(`${limited.origin}/__sandbox/stats`)).json()) as {
      requests: Record<string, number>;
      rateLimited: number;
    };
    const requests = Object.entries(stats.requests)
      .filter(([route]) => route.includes('/tasks'))
      .reduce((sum, [, n]) => sum + n, 0);
    // 100 requests fit the first window: no wait is needed; every 100 more need another minute.
    const minimumMs = Math.max(0, Math.ceil((requests - 100) / 100)) * 60_000;
    const over = list.wallMs - minimumMs;
    row(
      '`list --all`, 10,000 tasks, sandbox limit 100/min: requests, 429s, time',
      `${requests} requests, ${stats.rateLimited} × 429, ${secs(list.wallMs)} (minimum ${secs(minimumMs)})`,
      '',
      '',
      '≤ 101 requests, no 429, ≤ minimum + 5 s',
      list.code === 0 && requests <= 101 && stats.rateLimited === 0 && over <= 5_000,
    );
  } finally {
    await limited.close();
  }

  // 4: the sandbox with 200,000 tasks, beside the same sandbox holding one task.
  const small = await sandboxUnderLoad(tools, 1);
  const big = await sandboxUnderLoad(tools, 200_000);
  row(
    'sandbox with 200,000 one-item tasks (`--state`): RSS now / peak',
    `${mb(big.rssKb)} / ${mb(big.hwmKb)}`,
    `1 task: ${mb(small.rssKb)} / ${mb(small.hwmKb)}`,
    `${(((big.rssKb - small.rssKb) * 1024) / 200_000).toFixed(0)} B/task`,
    '≤ 300 MB, ≤ 1 KB/task',
    big.hwmKb <= 300 * 1024 && big.rssKb - small.rssKb <= 200_000,
  );
  row(
    'sandbox with 200,000 tasks: GET /balance while 2,000 creates are saved (p50 / p99 / max)',
    `${big.p50.toFixed(1)} / ${big.p99.toFixed(1)} / ${big.max.toFixed(1)} ms`,
    `1 task: ${small.p50.toFixed(1)} / ${small.p99.toFixed(1)} / ${small.max.toFixed(1)} ms`,
    '',
    '≤ 50 ms (median)',
    big.p50 <= 50,
  );
  notes.push(
    "scale: the sandbox is `taskctl sandbox --state FILE` in its own process, loaded from a generated state file of 1 or 200,000 one-item tasks; RSS from /proc (VmRSS after the creates, VmHWM: start-up and load included); latency of sequential GET /balance while 8 connections create 2,000 tasks, each fsynced to the journal before its answer (a read waits for a save in flight, so the tail is the disk's fsync time and the machine's load, the same with 1 task)",
  );
}

interface SandboxFigures {
  rssKb: number;
  hwmKb: number;
  p50: number;
  p99: number;
  max: number;
}

async function sandboxUnderLoad(tools: ScaleBenchTools, count: number): Promise<SandboxFigures> {
  const { NODE, BIN, WORK, cliEnv } = tools;
  const file = join(WORK, `state-${count}.json`);
  stateFile(file, count);
  rmSync(`${file}.journal`, { force: true });
  const child = spawn(
    NODE,
    [BIN, 'sandbox', '--port', '0', '--rate-limit', '0', '--item-ms', '0', '--state', file, '-o', 'json'],
    { env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  try {
    let out = '';
    const info = await new Promise<{ url: string; apiKey: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the sandbox did not start within 60 s')), 60_000);
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        try {
          const parsed = JSON.parse(out) as { url: string; apiKey: string };
          clearTimeout(timer);
          resolve(parsed);
        } catch {
          // not complete yet
        }
      });
      child.on('exit', (code) => reject(new Error(`the sandbox exited ${String(code)}`)));
    });
    const headers = { 'x-api-key': info.apiKey, 'content-type': 'application/json' };
    const latencies: number[] = [];
    const progress = { creating: true };
    const creates = (async () => {
      const worker = async (w: number) => {
        for (let i = 0; i < 250; i++) {
          const response = await fetch(`${info.url}/tasks`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ service: 'domain_check_availability', items: [`new-${w}-${i}.example.com`] }),
          });
          await response.arrayBuffer();
        }
      };
      await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
      progress.creating = false;
    })();
    while (progress.creating) {
      const started = performance.now();
      await (await fetch(`${info.url}/balance`, { headers })).arrayBuffer();
      latencies.push(performance.now() - started);
    }
    await creates;
    const { rssKb, hwmKb } = tools.rssOf(child.pid ?? 0);
    const sorted = [...latencies].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? NaN;
    return { rssKb, hwmKb, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? NaN };
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit').catch(() => undefined);
    process.removeListener('exit', killOnExit);
  }
}

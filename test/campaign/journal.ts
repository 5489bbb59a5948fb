/**
 * The journal's crash campaign: one chunked `create --journal` job, killed with SIGKILL again and again and
 * resumed each time, with the sandbox's faults mixed in, then checked against the sandbox's tasks: every input item in
 * exactly one task, none twice, none missing. Kills come three ways: at a random instant from outside, and at the two
 * instants too narrow to hit from outside (TASKCTL_CRASH_AT, core/submit/crash-point.ts): just after a chunk's `send`
 * record is on disk (before the POST), and just after the POST's answer (before the `created` record).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../../src/sandbox/index.js';
import { generator } from '../seeded.js';

const BIN = fileURLToPath(new URL('../../bin/taskctl.js', import.meta.url));
const SERVICE = 'domain_check_availability';

export interface JournalCampaignOptions {
  /** Chunks of the job (≥ 50 in the long form). */
  chunks: number;
  chunkSize: number;
  /** Kills to deliver before the job may finish. */
  kills: number;
  seed: number;
  /** A kill from outside comes 150 ms to this much later after the start. */
  timerMaxMs: number;
  /** Share of runs that get a sandbox fault first (0..1). */
  faultRate: number;
  /** Fault kinds drawn from (see FAULTS). */
  faults?: readonly FaultName[];
  log?: (line: string) => void;
}

export interface JournalCampaignReport {
  runs: number;
  kills: Record<KillKind, number>;
  faults: Record<string, number>;
  exits: Record<string, number>;
  tasks: number;
  items: number;
  violations: string[];
}

type KillKind = 'sent' | 'answered' | 'timer';

const FAULTS = {
  'post-500': { method: 'POST', path: '/api/v1/tasks', kind: 'status', status: 500 },
  'post-reset-after': { method: 'POST', path: '/api/v1/tasks', kind: 'reset-after' },
  'post-reset-before': { method: 'POST', path: '/api/v1/tasks', kind: 'reset-before' },
  'post-delay': { method: 'POST', path: '/api/v1/tasks', kind: 'delay', delayMs: 400 },
  'list-503': { method: 'GET', path: '/api/v1/tasks', kind: 'status', status: 503 },
} as const;
type FaultName = keyof typeof FAULTS;

function run(
  args: string[],
  env: Record<string, string>,
  killAfterMs?: number,
): Promise<{ code: number | null; signal: string | null; stderr: string; timerFired: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let timerFired = false;
    const timer =
      killAfterMs === undefined
        ? undefined
        : setTimeout(() => {
            timerFired = child.kill('SIGKILL');
          }, killAfterMs);
    const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(guard);
      resolve({ code, signal, stderr, timerFired });
    });
  });
}

/** The campaign's own reading of the journal: chunks that have a task, and the highest chunk any record names. */
/** True once the journal's first line is a complete job record. */
function hasJob(journal: string): boolean {
  let text = '';
  try {
    text = readFileSync(journal, 'utf8');
  } catch {
    return false;
  }
  const end = text.indexOf('\n');
  if (end < 0) return false;
  try {
    return (JSON.parse(text.slice(0, end)) as { type?: string }).type === 'job';
  } catch {
    return false;
  }
}

function progress(journal: string): { done: number; reached: number } {
  let text = '';
  try {
    text = readFileSync(journal, 'utf8');
  } catch {
    return { done: 0, reached: 0 };
  }
  const done = new Set<number>();
  let reached = 0;
  for (const line of text.split('\n')) {
    try {
      const record = JSON.parse(line) as { type?: string; chunk?: number; task?: number | null };
      reached = Math.max(reached, record.chunk ?? 0);
      if ((record.type === 'created' || record.type === 'reconciled') && record.task != null && record.chunk) {
        done.add(record.chunk);
      }
    } catch {
      // a torn last line
    }
  }
  return { done: done.size, reached };
}

export async function runJournalCampaign(options: JournalCampaignOptions): Promise<JournalCampaignReport> {
  const rand = generator(options.seed);
  const log = options.log ?? (() => {});
  const faultNames = options.faults ?? (Object.keys(FAULTS) as FaultName[]);
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-journal-campaign-'));
  const sandbox = await startSandbox({ port: 0, rateLimit: 0, itemMs: 0, balance: 10_000_000 });
  const report: JournalCampaignReport = {
    runs: 0,
    kills: { sent: 0, answered: 0, timer: 0 },
    faults: {},
    exits: {},
    tasks: 0,
    items: 0,
    violations: [],
  };
  try {
    const count = options.chunks * options.chunkSize;
    const items = Array.from({ length: count }, (_, i) => `c${options.seed}-${i}.example.com`);
    const input = join(dir, 'items.txt');
    writeFileSync(input, `${items.join('\n')}\n`);
    const journal = join(dir, 'job.jsonl');
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      TASKCTL_CONFIG_DIR: join(dir, 'config'),
      TASKCTL_CACHE_DIR: join(dir, 'cache'),
      TASKCTL_STATE_DIR: join(dir, 'state'),
      TASKCTL_BASE_URL: sandbox.url,
      TASKCTL_API_KEY: sandbox.apiKey,
    };
    // A short POST deadline keeps the wait before settling an in-flight chunk short (its deadline plus 2 s).
    const create = [
      '--request-timeout',
      '1s',
      'create',
      SERVICE,
      '-f',
      input,
      '--chunk-size',
      String(options.chunkSize),
      '--journal',
      journal,
      '-q',
    ];
    const resume = ['--request-timeout', '1s', 'resume', journal, '-q'];
    const killsTotal = () => report.kills.sent + report.kills.answered + report.kills.timer;
    let finished = false;
    for (let attempt = 0; attempt < options.kills * 4 + 40 && !finished; attempt++) {
      const args = attempt === 0 || rand() < 0.3 ? create : resume; // re-running the same create continues it too
      let fault: FaultName | undefined;
      if (rand() < options.faultRate) {
        fault = faultNames[Math.floor(rand() * faultNames.length)];
        if (fault) {
          await fetch(`${sandbox.origin}/__sandbox/faults`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ ...FAULTS[fault], count: 1 }),
          });
          report.faults[fault] = (report.faults[fault] ?? 0) + 1;
        }
      }
      let kill: KillKind | undefined;
      // The first chunk never sent: a chunk in flight may be settled without another POST, so its kill would not land.
      const next = progress(journal).reached + 1;
      const killsLeft = options.kills - killsTotal();
      if (killsLeft > 0) {
        const draw = rand();
        kill = draw < 0.35 ? 'sent' : draw < 0.7 ? 'answered' : 'timer';
        // A kill from outside may come too late; near the end only the instants from inside are sure to land.
        if (kill === 'timer' && options.chunks - next < killsLeft * 2) kill = draw < 0.85 ? 'sent' : 'answered';
      }
      // A kill from outside has a backstop a few chunks on, so that a fast run cannot finish the job before its kills.
      const crashAt = kill === 'timer' ? `answered:${next + 3}` : kill === undefined ? undefined : `${kill}:${next}`;
      const runEnv: Record<string, string> = crashAt ? { ...env, TASKCTL_CRASH_AT: crashAt } : env;
      const result = await run(
        args,
        runEnv,
        kill === 'timer' ? 150 + Math.floor(rand() * options.timerMaxMs) : undefined,
      );
      report.runs++;
      await fetch(`${sandbox.origin}/__sandbox/faults`, { method: 'DELETE' });
      if (result.signal === 'SIGKILL') {
        if (kill) report.kills[kill === 'timer' && !result.timerFired ? 'answered' : kill]++;
        log(`run ${report.runs}: killed (${kill ?? '?'} at chunk ${next})${fault ? ` with ${fault}` : ''}`);
        continue;
      }
      const code = String(result.code);
      report.exits[code] = (report.exits[code] ?? 0) + 1;
      log(`run ${report.runs}: exit ${code}${fault ? ` with ${fault}` : ''}`);
      // 9: a chunk in doubt stops the job (the next resume settles it); 8: the service failed (a fault)
      const expected = result.code === 0 || result.code === 9 || result.code === 8;
      const alreadyDone = result.code === 2 && result.stderr.includes('is finished');
      // The first create killed before its job record (loading, reading, pricing): nothing was sent, and resume says
      // so (exit 2: the journal holds no job, or, killed before it made the file, there is none at the path); a re-run
      // of the create starts the job. Only while the journal really holds no job.
      const notStarted = result.code === 2 && /holds no job|no journal at/.test(result.stderr) && !hasJob(journal);
      if (!expected && !alreadyDone && !notStarted) {
        report.violations.push(`run ${report.runs}: exit ${code}: ${result.stderr.trim().slice(0, 300)}`);
      }
      finished = (result.code === 0 || alreadyDone) && progress(journal).done === options.chunks;
    }
    if (!finished) report.violations.push(`the job did not finish in ${report.runs} runs`);

    // The truth: every item in exactly one task.
    const state = (await (await fetch(`${sandbox.origin}/__sandbox/state`)).json()) as { tasks: Array<{ id: number }> };
    const seen = new Map<string, number>();
    for (const { id } of state.tasks) {
      const response = await fetch(`${sandbox.url}/tasks/${id}`, { headers: { 'x-api-key': sandbox.apiKey } });
      const task = (await response.json()) as { data: { items: Array<{ target: string }> } };
      for (const item of task.data.items) seen.set(item.target, (seen.get(item.target) ?? 0) + 1);
    }
    report.tasks = state.tasks.length;
    report.items = seen.size;
    const twice = [...seen].filter(([, n]) => n > 1).map(([item]) => item);
    const missing = items.filter((item) => !seen.has(item));
    const foreign = [...seen.keys()].filter((item) => !items.includes(item));
    if (twice.length > 0) report.violations.push(`${twice.length} items in more than one task, e.g. ${twice[0]}`);
    if (missing.length > 0) report.violations.push(`${missing.length} items in no task, e.g. ${missing[0]}`);
    if (foreign.length > 0) report.violations.push(`${foreign.length} items not in the input`);
    if (report.tasks !== options.chunks) report.violations.push(`${report.tasks} tasks for ${options.chunks} chunks`);
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return report;
}

export function formatReport(report: JournalCampaignReport): string {
  const kills = Object.entries(report.kills)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  const faults = Object.entries(report.faults)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  const exits = Object.entries(report.exits)
    .map(([code, n]) => `exit ${code}: ${n}`)
    .join(', ');
  return [
    `runs ${report.runs}; kills ${kills}; faults ${faults || 'none'}; ${exits}`,
    `tasks ${report.tasks}, distinct items ${report.items}; violations ${report.violations.length}`,
    ...report.violations,
  ].join('\n');
}

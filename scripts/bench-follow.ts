// The follow policy's figures for `npm run bench`, called by scripts/bench.ts (section `follow`):
// 1. virtual time (scripts/follow-sim.ts through tsx): the real follow engine against the real sandbox on one virtual
//    clock, beside a fixed-interval baseline kept in that script (taskctl's polling before the predictive schedule), for tasks of 0.1 s
//    to 10 minutes: how long after `completed_at` the end was noticed, and GET requests; for 300 tasks, the rounds and
//    the busiest minute under the client limiter's pace;
// 2. real time: `create --wait` of a 0.1 s task, process start included (median of 5).
import { join } from 'node:path';
import type { SimOutput } from './follow-sim.ts';

const TARGETS = {
  '10 s': { lateMs: 2000, gets: 10 },
  '60 s': { lateMs: 2000, gets: 15 },
  '75 s': { lateMs: 2000, gets: 15 },
  '10 min': { lateMs: 3000, gets: 40 },
};

/** What bench.ts lends this section: its table, log and process helpers. */
export interface FollowBenchTools {
  row: (figure: string, result: string, baseline?: string, ratio?: string, target?: string, ok?: boolean) => void;
  log: (line: string) => void;
  notes: string[];
  run: (
    command: string,
    args: string[],
    options: { env?: Record<string, string | undefined>; timeoutMs?: number; input?: string },
  ) => Promise<{ code: number | null; stdout: string; stderr: string; wallMs: number }>;
  NODE: string;
  BIN: string;
  ROOT: string;
  cliEnv: (extra?: Record<string, string>) => Record<string, string>;
  loadSandbox: () => Promise<typeof import('../src/sandbox/index.ts')>;
}

export async function benchFollow({ row, log, notes, run, NODE, BIN, ROOT, cliEnv, loadSandbox }: FollowBenchTools) {
  log('follow: predictive vs fixed-interval polling (virtual time, real engine and sandbox)');
  const sim = await run(NODE, ['--import', 'tsx', join(ROOT, 'scripts', 'follow-sim.ts')], {
    env: { ...process.env },
    timeoutMs: 300_000,
  });
  if (sim.code !== 0)
    throw new Error(`follow-sim exited ${sim.code}: ${sim.stderr.trim().split('\n').slice(-3).join(' ')}`);
  const { predictive, fixed: backoff, '300 tasks': many } = JSON.parse(sim.stdout) as SimOutput;
  const seconds = (x: number) => `${(x / 1000).toFixed(2)} s`;
  for (const [name, target] of Object.entries(TARGETS) as Array<
    [keyof typeof TARGETS, (typeof TARGETS)[keyof typeof TARGETS]]
  >) {
    const now = predictive[name];
    const before = backoff[name];
    row(
      `follow: ${name} task, end noticed after completed_at`,
      seconds(now.noticedMs),
      `${seconds(before.noticedMs)} (fixed interval)`,
      '',
      `≤ ${target.lateMs / 1000} s`,
      now.noticedMs <= target.lateMs,
    );
    row(
      `follow: ${name} task, GET requests`,
      String(now.gets),
      `${before.gets} (fixed interval)`,
      '',
      `≤ ${target.gets}`,
      now.gets <= target.gets,
    );
  }
  row(
    'follow: 0.1 s task, end noticed after completed_at (virtual time)',
    seconds(predictive['0.1 s'].noticedMs),
    `${seconds(backoff['0.1 s'].noticedMs)} (fixed interval)`,
    '',
    '',
  );
  row('follow: 300 tasks, requests per round (max)', String(many.maxPerRound), '', '', '≤ 4', many.maxPerRound <= 4);
  row(
    'follow: 300 tasks, requests in any 60 s (no headers: the documented 100/min)',
    `${many.maxPerMinute} (${many.requests} in all)`,
    '',
    '',
    '≤ 100',
    many.maxPerMinute <= 100,
  );

  log('follow: `create --wait` of a 0.1 s task, process start included (real time)');
  const { startSandbox } = await loadSandbox();
  const sandbox = await startSandbox({ port: 0, rateLimit: 0, itemMs: 100 });
  try {
    const env = cliEnv({ TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey });
    const walls: number[] = [];
    for (let i = 0; i < 5; i++) {
      const result = await run(
        NODE,
        [BIN, 'create', 'domain_check_availability', `quick${i}.example.com`, '--wait', '-q'],
        {
          env,
        },
      );
      if (result.code !== 0) throw new Error(`create --wait exited ${result.code}: ${result.stderr.trim()}`);
      walls.push(result.wallMs);
    }
    walls.sort((a, b) => a - b);
    const median = walls[2] ?? Number.NaN;
    row(
      'follow: `create --wait` of a 0.1 s task (process start to exit, median of 5)',
      `${Math.round(median)} ms`,
      `${Math.round(backoff['0.1 s'].sinceStartMs)} ms + process start (fixed interval, virtual time)`,
      '',
      '≤ 1000 ms',
      median <= 1000,
    );
  } finally {
    await sandbox.close();
  }
  notes.push(
    'follow: virtual-time figures run the real follow engine (src/core/follow) against the real sandbox (its item timings) on one virtual clock through scripts/follow-sim.ts; "fixed interval" is the baseline in scripts/follow-sim.ts (GET every 2 s growing ×1.5 to 30 s while the status does not change, as before the predictive schedule); follow is paced by the client\'s rate limiter (src/api/rate-limit.ts readyAt); tasks of 0.1 s (1 × 100 ms), 10 s (50 × 200 ms), 60 s (1,200 × 50 ms), 75 s (375 × 200 ms), 10 min (3,000 × 200 ms); 300 tasks of 1–10 items × 300 ms',
  );
}

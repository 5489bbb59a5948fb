/**
 * The randomised exactly-once campaign (issue 17): many creates of identical items against sandboxes with random faults
 * on POST /tasks and GET /tasks (reset before or after the server acted, a delay past the request timeout, 5xx,
 * truncated or non-JSON bodies), some runs concurrent in this process and some in parallel spawned processes. After
 * each run (or group of concurrent runs), the sandbox's task list is compared with what was printed and the exit code:
 * - exit 0: exactly the printed task was created by the run (a new task, never one that existed before);
 * - exit 9: at most one task was created, and the message says a task may have been created and how to check;
 * - any other exit: nothing was created;
 * - never two tasks for one create, never a task created that no run printed or called "may have been created".
 * The one case told apart but not failed: a run whose POST never landed, concurrent with an identical create that did,
 * recovers that task (both runs print it). Without an idempotency key the two are indistinguishable (reconcile.ts).
 */
import { startSandbox } from '../../src/sandbox/index.js';
import { isolatedHome, runCli } from '../e2e/harness.js';
import { startWorld, type Fault, type World } from './world.js';

export const POST_FAULTS = [
  'none',
  'reset-before',
  'reset-after',
  'delay-past-timeout',
  'delay-beyond-window',
  'delay-short',
  '5xx',
  'truncate',
  'non-json',
] as const;
export type PostFault = (typeof POST_FAULTS)[number];
const GET_FAULTS = ['reset-before', '5xx', 'truncate', 'non-json', 'delay-past-timeout'] as const;

/**
 * - created / recovered: exit 0 with the run's own new task (recovered: after an ambiguous POST);
 * - unknown-none / unknown-landed: exit 9, and no task / one task was created by the run;
 * - other-exit: another exit code, nothing created;
 * - limit: concurrent identical creates where one POST never landed (or landed after the waiting-out window) and that
 *   run took the other run's task as its own: the documented limit without an idempotency key;
 * - VIOLATION: anything else (a printed task that was not new, two tasks for one create, a task nobody reported).
 */
export const OUTCOMES = ['created', 'recovered', 'unknown-none', 'unknown-landed', 'other-exit', 'limit', 'VIOLATION'];
export type Outcome = (typeof OUTCOMES)[number];

/** Faults under which two concurrent identical creates cannot be told apart (see `judge`). */
const LIMIT_FAULTS: ReadonlySet<string> = new Set(['reset-before', '5xx', 'non-json', 'delay-beyond-window']);

/**
 * The client cuts a request at its timeout with its own timer (100 ms here). Sleeps are compressed 20×, so
 * reconciliation's 10 s take 0.5 s real after the failure: a POST delayed 0.3 s is past the timeout and lands inside the
 * waiting-out window (its timer expires before the last scan's sleep does, however busy the process); one delayed 1 s
 * lands after it. Spawned runs keep the real clock: both land inside their 10 s.
 */
const REQUEST_TIMEOUT = '100ms';
const PAST_TIMEOUT_MS = 300;
const BEYOND_WINDOW_MS = 1000;
const CLOCK_SCALE = 20;
/** How long after its delay a delayed POST may take to make its task before the group is judged without it. */
const SETTLE_MARGIN_MS = 2000;
const ITEMS = ['alpha.com', 'beta.org'];
const SERVICE = 'domain_check_availability';

/** mulberry32: a seeded generator, so a failing campaign can be replayed with its seed. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function faultFor(kind: PostFault | (typeof GET_FAULTS)[number], method: 'POST' | 'GET', count = 1): Fault | undefined {
  const base = { method, path: '/tasks', count };
  switch (kind) {
    case 'none':
      return undefined;
    case 'delay-past-timeout':
      return { ...base, kind: 'delay', delayMs: PAST_TIMEOUT_MS };
    case 'delay-beyond-window':
      return { ...base, kind: 'delay', delayMs: BEYOND_WINDOW_MS };
    case 'delay-short':
      return { ...base, kind: 'delay', delayMs: 20 };
    case '5xx':
      return { ...base, kind: 'status', status: 503 };
    default:
      return { ...base, kind };
  }
}

export interface RunRecord {
  fault: PostFault;
  getFault: string;
  mode: 'sequential' | 'concurrent' | 'spawned';
  code: number;
  outcome: Outcome;
  detail?: string;
}

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Judges one group of runs (one run when sequential) from the ids that appeared during it; `fault` hit one of them. */
export function judge(results: Result[], created: number[], fault: PostFault): Outcome[] {
  const createdSet = new Set(created);
  const printed = results.map((r) => (r.code === 0 ? r.stdout.trim() : ''));
  const claims = new Map<string, number>();
  for (const id of printed) if (id) claims.set(id, (claims.get(id) ?? 0) + 1);
  const unknownRuns = results.filter((r) => r.code === 9).length;
  const claimed = new Set([...claims.keys()].map(Number));
  const orphans = created.filter((id) => !claimed.has(id)).length;
  const shared = [...claims.values()].some((n) => n > 1);
  const tooMany = created.length > results.length;
  const limit = results.length > 1 && LIMIT_FAULTS.has(fault);
  // Orphans beyond the runs that said "may have been created", or a task claimed twice: the limit, or a violation.
  const groupProblem = orphans > unknownRuns || shared;
  return results.map((r, index): Outcome => {
    if (tooMany) return 'VIOLATION';
    if (r.code === 0) {
      const id = printed[index]!;
      if (!/^\d+$/.test(id) || !createdSet.has(Number(id))) return 'VIOLATION';
      if (groupProblem) return limit ? 'limit' : 'VIOLATION';
      return r.stderr.includes('recovered: task') ? 'recovered' : 'created';
    }
    if (groupProblem && !limit) return 'VIOLATION';
    if (r.code === 9) {
      if (!r.stderr.includes('may have created a task') || !r.stderr.includes('taskctl list --service'))
        return 'VIOLATION';
      return orphans > 0 ? 'unknown-landed' : 'unknown-none';
    }
    return 'other-exit';
  });
}

export interface CampaignOptions {
  runs: number;
  seed: number;
  /** Independent sandboxes worked in parallel, each with its own sequence of identical creates. */
  lanes: number;
  /** Groups of three spawned processes creating identical items at once (needs `npm run build`). */
  spawnedGroups: number;
  /** The POST faults a spawned group draws from (default all). Spawned runs wait in real time. */
  spawnedFaults?: readonly PostFault[];
  log?: (line: string) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the campaign reads of a sandbox between runs. */
interface Observed {
  tasks: () => Promise<Array<{ id: number }>>;
  /** POST /tasks requests the sandbox has received so far. */
  posts: () => Promise<number>;
}

async function ids(world: Observed): Promise<Set<number>> {
  return new Set((await world.tasks()).map((t) => t.id));
}

/**
 * A delayed POST lands after its delay, whatever the client concluded (it was received before the runs ended): wait
 * until every POST received since `postsBefore` has made its task (no other fault is active, so each one does), so that
 * it counts for this group and not the next. Bounded: past the delay and a margin, the group is judged as it stands.
 */
async function settle(world: Observed, before: Set<number>, postsBefore: number, delayMs: number): Promise<void> {
  const until = Date.now() + delayMs + SETTLE_MARGIN_MS;
  for (;;) {
    const posts = (await world.posts()) - postsBefore;
    const created = [...(await ids(world))].filter((id) => !before.has(id)).length;
    if (created >= posts || Date.now() > until) return;
    await sleep(20);
  }
}

async function lane(world: World, runs: number, random: () => number, records: RunRecord[]): Promise<void> {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  let done = 0;
  while (done < runs) {
    const size = Math.min(runs - done, random() < 0.2 ? 2 + Math.floor(random() * 2) : 1);
    const fault = pick(POST_FAULTS);
    const getKind = random() < 0.3 ? pick(GET_FAULTS) : undefined;
    const before = await ids(world);
    const postsBefore = await world.posts();
    const faults = [
      faultFor(fault, 'POST'),
      getKind ? faultFor(getKind, 'GET', 1 + Math.floor(random() * 2)) : undefined,
    ];
    for (const f of faults) if (f) await world.fault(f);
    const argv = ['--request-timeout', REQUEST_TIMEOUT, 'create', SERVICE, ...ITEMS, '-q'];
    const results = await Promise.all(Array.from({ length: size }, () => world.run(argv)));
    const post = faults[0];
    if (post?.kind === 'delay') await settle(world, before, postsBefore, post.delayMs ?? 0);
    await world.clearFaults();
    const created = [...(await ids(world))].filter((id) => !before.has(id));
    // The POST fault hit one run of a concurrent group (whichever POST came first): the others ran clean.
    const outcomes = judge(results, created, fault);
    results.forEach((r, i) => {
      const record: RunRecord = {
        fault,
        getFault: getKind ?? '-',
        mode: size > 1 ? 'concurrent' : 'sequential',
        code: r.code,
        outcome: outcomes[i]!,
      };
      if (record.outcome === 'VIOLATION') {
        record.detail = `created ${JSON.stringify(created)}; stdout ${JSON.stringify(r.stdout)}; stderr ${JSON.stringify(r.stderr.slice(0, 600))}`;
      }
      records.push(record);
    });
    done += size;
  }
}

/** Three real processes at once against a real-clock sandbox; one random POST fault. */
async function spawnedGroup(
  random: () => number,
  records: RunRecord[],
  faults: readonly PostFault[] = POST_FAULTS,
): Promise<void> {
  const sandbox = await startSandbox({ port: 0, itemMs: 0, rateLimit: 0, balance: 1_000_000 });
  const home = isolatedHome();
  const env = { ...home.env, TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey };
  const world: Observed = {
    async tasks() {
      const response = await fetch(`${sandbox.origin}/__sandbox/state`);
      return ((await response.json()) as { tasks: Array<{ id: number }> }).tasks;
    },
    async posts() {
      const response = await fetch(`${sandbox.origin}/__sandbox/stats`);
      return ((await response.json()) as { requests: Record<string, number> }).requests['POST /api/v1/tasks'] ?? 0;
    },
  };
  try {
    const fault = faults[Math.floor(random() * faults.length)]!;
    const first = await world.tasks();
    // An identical task created before, as in the scenario.
    await runCli(['create', SERVICE, ...ITEMS, '-q'], { env });
    const before = new Set([...first, ...(await world.tasks())].map((t) => t.id));
    const postsBefore = await world.posts();
    const f = faultFor(fault, 'POST');
    if (f) {
      await fetch(`${sandbox.origin}/__sandbox/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(f),
      });
    }
    const results = (
      await Promise.all(
        [0, 1, 2].map(() =>
          runCli(['--request-timeout', REQUEST_TIMEOUT, 'create', SERVICE, ...ITEMS, '-q'], { env, timeoutMs: 60_000 }),
        ),
      )
    ).map((r) => ({ code: r.code ?? -1, stdout: r.stdout, stderr: r.stderr }));
    if (f?.kind === 'delay') await settle(world, before, postsBefore, f.delayMs ?? 0);
    const created = (await world.tasks()).map((t) => t.id).filter((id) => !before.has(id));
    const outcomes = judge(results, created, fault);
    results.forEach((r, i) => {
      const record: RunRecord = { fault, getFault: '-', mode: 'spawned', code: r.code, outcome: outcomes[i]! };
      if (record.outcome === 'VIOLATION') {
        record.detail = `created ${JSON.stringify(created)}; stdout ${JSON.stringify(r.stdout)}; stderr ${JSON.stringify(r.stderr.slice(0, 600))}`;
      }
      records.push(record);
    });
  } finally {
    await sandbox.close();
    home.cleanup();
  }
}

export async function runCampaign(options: CampaignOptions): Promise<RunRecord[]> {
  const records: RunRecord[] = [];
  const random = generator(options.seed);
  const perLane = Math.ceil(options.runs / options.lanes);
  const worlds = await Promise.all(Array.from({ length: options.lanes }, () => startWorld({ scale: CLOCK_SCALE })));
  try {
    const lanes = worlds.map((world, index) =>
      lane(world, Math.min(perLane, options.runs - index * perLane), generator(options.seed * 31 + index), records),
    );
    const spawned = (async () => {
      for (let i = 0; i < options.spawnedGroups; i++) await spawnedGroup(random, records, options.spawnedFaults);
    })();
    await Promise.all([...lanes, spawned]);
  } finally {
    await Promise.all(worlds.map((w) => w.close()));
  }
  return records;
}

/** Runs per POST fault kind × outcome, with the totals. */
export function formatTable(records: readonly RunRecord[]): string {
  const header = ['POST fault', ...OUTCOMES, 'total'];
  const rows = POST_FAULTS.map((fault) => {
    const mine = records.filter((r) => r.fault === fault);
    return [fault, ...OUTCOMES.map((o) => String(mine.filter((r) => r.outcome === o).length)), String(mine.length)];
  });
  rows.push([
    'all',
    ...OUTCOMES.map((o) => String(records.filter((r) => r.outcome === o).length)),
    String(records.length),
  ]);
  const modes = ['sequential', 'concurrent', 'spawned'].map(
    (m) => `${m} ${records.filter((r) => r.mode === m).length}`,
  );
  const gets = records.filter((r) => r.getFault !== '-').length;
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), ...rows.map(line), `runs: ${modes.join(', ')}; with a GET /tasks fault as well: ${gets}`].join(
    '\n',
  );
}

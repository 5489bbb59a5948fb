/**
 * The exactly-once campaign (docs/behaviour.md#exactly-once): creates that overlap. Groups of 2–4 runs start at once with the same service
 * and items, each through its own fault-injecting proxy (proxy.ts: reset-before, reset-after, 502 not forwarded, a
 * delay beyond the request timeout, or none), all runs of a group either sharing one cache directory (one machine: the
 * local ledger) or each with its own (separate machines). Three sandboxes: (a) plain, (b) whole-second timestamps and a
 * clock 3 s ahead, (c) a `Date` header 5 minutes ahead of the clock stamping tasks (its proxies move it). Runs are in process, on a clock shared with the sandbox whose sleeps are 20× shorter (world.ts).
 *
 * Each run is judged against what its own proxy saw the service create for it:
 * - exit 0 prints exactly the task its own request created (`created`, or `recovered` after an unknown outcome);
 * - exit 9 says the request may have created a task (`unknown-none` / `unknown-landed`, by cause); after a reset
 *   that came after the service answered, "no matching task" would break the rule (its task was in its window);
 * - any other exit: its request created nothing (`other-exit`);
 * - `cross-machine`: exit 0 with another run's task while its own request created nothing (or only after the run had
 *   ended: out of reach), the runs NOT sharing a cache directory: the one case no client can tell apart without an
 *   idempotency key (docs/behaviour.md#exactly-once);
 * - anything else is a VIOLATION (a printed id the run's request did not create, a task created and not printed with
 *   exit 0, exit 8 or another code after a POST that landed, exit 9 without saying so).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generator } from '../seeded.js';
import { FaultProxy, PROXY_FAULTS, type ProxyFault } from './proxy.js';
import { startWorld, type World } from './world.js';

const OUTCOMES = [
  'created',
  'recovered',
  'unknown-none',
  'unknown-landed',
  'other-exit',
  'cross-machine',
  'VIOLATION',
] as const;
type Outcome = (typeof OUTCOMES)[number];
const CAUSES = ['none', 'ambiguous', 'contested', 'unproven', 'unfinished', 'unread', 'failure'] as const;
type Cause = (typeof CAUSES)[number];
const WORLDS = ['plain', 'whole-seconds+3s', 'date+5m'] as const;
type WorldKind = (typeof WORLDS)[number];

const SERVICE = 'domain_check_availability';
/**
 * Time runs 20× faster for client and sandbox alike (ScaledClock): the 10 s horizon takes 0.5 s real. The request
 * timeout is real (0.3 s, 6 s virtual); a `delay` fault holds a POST 0.45 s real, past the timeout, so that it lands
 * about 0.15 s (3 s virtual) after the failure, inside the horizon; under load some land after it (out of reach).
 */
const REQUEST_TIMEOUT = '300ms';
const DELAY_MS = 450;
const CLOCK_SCALE = 20;
/** How far the `date+5m` world's Date header runs ahead (on the campaign's clock, as the sandbox's Date reads it). */
const DATE_AHEAD_MS = 5 * 60_000;
/** Fault weights: about a third of the runs see none. */
const WEIGHTS: Record<ProxyFault, number> = { none: 3, 'reset-before': 2, 'reset-after': 2, '502': 2, delay: 2 };

export interface RunRecord {
  world: WorldKind;
  sharing: boolean;
  fault: ProxyFault;
  code: number;
  outcome: Outcome;
  cause?: Cause | undefined;
  detail?: string | undefined;
}

interface RunResultLike {
  code: number;
  stdout: string;
  stderr: string;
}

/** The cause an exit 9 states (core/submit/send.ts words it). */
function causeOf(stderr: string): Cause {
  if (stderr.includes('several matching tasks')) return 'ambiguous';
  if (stderr.includes('so it may be that run')) return 'contested';
  if (stderr.includes('could not be read in full before sending')) return 'unproven';
  if (stderr.includes('could not be read at the end')) return 'unfinished';
  if (stderr.includes('could not be read to find out')) return 'unread';
  if (stderr.includes('no matching task of this request')) return 'none';
  return 'failure';
}

/** Judges one run of a group: `own` is what its proxy saw created, `others` what the group's other proxies saw. */
function judge(
  result: RunResultLike,
  fault: ProxyFault,
  own: readonly number[],
  others: readonly number[],
  sharing: boolean,
  /** Its own task was made only after the run had ended (a delay past the horizon): out of any client's reach. */
  ownLate = false,
  /** Its own task existed well before the run's last scan (100 ms real, 2 s on the campaign's clock). */
  ownEarly = false,
): { outcome: Outcome; cause?: Cause } {
  if (own.length > 1) return { outcome: 'VIOLATION' };
  if (result.code === 0) {
    const printed = result.stdout.trim().split('\n').filter(Boolean).map(Number);
    const [id] = printed;
    if (printed.length !== 1 || id === undefined || !Number.isSafeInteger(id)) return { outcome: 'VIOLATION' };
    if (own.includes(id)) return { outcome: result.stderr.includes('recovered: task') ? 'recovered' : 'created' };
    if (!sharing && (own.length === 0 || ownLate) && others.includes(id)) return { outcome: 'cross-machine' };
    return { outcome: 'VIOLATION' };
  }
  if (result.code === 9) {
    if (!result.stderr.includes('may have created a task')) return { outcome: 'VIOLATION' };
    const cause = causeOf(result.stderr);
    // Its task was made before the answer was lost and existed at its last scans: it lay in its window, so "none
    // found" breaks the rule.
    if (cause === 'none' && fault === 'reset-after' && ownEarly) return { outcome: 'VIOLATION', cause };
    return { outcome: own.length > 0 ? 'unknown-landed' : 'unknown-none', cause };
  }
  return { outcome: own.length === 0 ? 'other-exit' : 'VIOLATION' };
}

export interface CampaignOptions {
  /** Creates in all (rounded up to whole groups). */
  creates: number;
  seed: number;
  /** Sandboxes worked in parallel, each of the WORLDS in turn. */
  lanes: number;
}

function pickFault(random: () => number): ProxyFault {
  const total = PROXY_FAULTS.reduce((sum, f) => sum + WEIGHTS[f], 0);
  let roll = random() * total;
  for (const fault of PROXY_FAULTS) {
    roll -= WEIGHTS[fault];
    if (roll < 0) return fault;
  }
  return 'none';
}

async function group(
  world: World,
  kind: WorldKind,
  name: string,
  random: () => number,
  sharing: boolean,
  records: RunRecord[],
): Promise<number> {
  const size = 2 + Math.floor(random() * 3);
  const items = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, i) => `${name}-${i}.example.com`);
  const faults = Array.from({ length: size }, () => pickFault(random));
  const homes = Array.from({ length: sharing ? 1 : size }, () => mkdtempSync(join(tmpdir(), 'taskctl-overlap-')));
  const dateAhead = kind === 'date+5m' ? DATE_AHEAD_MS : 0;
  const proxies = faults.map((fault) => new FaultProxy(world.sandbox.origin, fault, DELAY_MS, dateAhead));
  try {
    await Promise.all(proxies.map((p) => p.start()));
    const argv = ['--request-timeout', REQUEST_TIMEOUT, 'create', SERVICE, ...items, '-q'];
    const ended: number[] = [];
    const results = await Promise.all(
      proxies.map((proxy, i) =>
        world
          .run(argv, { dispatcher: proxy.agent, home: homes[sharing ? 0 : i] })
          .catch((error: unknown) => ({ code: -1, stdout: '', stderr: String(error) }))
          .finally(() => (ended[i] = Date.now())),
      ),
    );
    await Promise.all(proxies.map((p) => p.settle()));
    results.forEach((result, i) => {
      const proxy = proxies[i]!;
      const others = proxies.filter((_, j) => j !== i).flatMap((p) => p.created);
      const late = proxy.createdAt.some((at) => at > (ended[i] ?? 0));
      const early = proxy.createdAt.some((at) => at < (ended[i] ?? 0) - 100);
      const { outcome, cause } = judge(result, proxy.fault, proxy.created, others, sharing, late, early);
      const record: RunRecord = { world: kind, sharing, fault: proxy.fault, code: result.code, outcome, cause };
      // CAMPAIGN_DETAIL=1 keeps the detail of every run (to read why a run ended in exit 9).
      if (outcome === 'VIOLATION' || outcome === 'cross-machine' || process.env.CAMPAIGN_DETAIL) {
        record.detail =
          `group ${name} (${faults.join(', ')}), run ${i}: own ${JSON.stringify(proxy.created)}, others ${JSON.stringify(others)}; ` +
          `stdout ${JSON.stringify(result.stdout)}; stderr ${JSON.stringify(result.stderr.slice(0, 700))}`;
      }
      records.push(record);
    });
    return size;
  } finally {
    await Promise.all(proxies.map((p) => p.close()));
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  }
}

export async function runCampaign(options: CampaignOptions): Promise<RunRecord[]> {
  const records: RunRecord[] = [];
  const perLane = Math.ceil(options.creates / options.lanes);
  const kinds = Array.from({ length: options.lanes }, (_, i) => WORLDS[i % WORLDS.length]!);
  const worlds = await Promise.all(
    kinds.map((kind) =>
      startWorld(
        kind === 'whole-seconds+3s'
          ? { scale: CLOCK_SCALE, scaled: true, dialects: ['whole-seconds'], clockSkewMs: 3000 }
          : { scale: CLOCK_SCALE, scaled: true },
      ),
    ),
  );
  try {
    await Promise.all(
      worlds.map(async (world, lane) => {
        const random = generator(options.seed * 31 + lane);
        let done = 0;
        for (let g = 0; done < perLane; g++) {
          // Alternate: one group sharing a cache directory, the next not.
          done += await group(world, kinds[lane]!, `s${options.seed}l${lane}g${g}`, random, g % 2 === 0, records);
        }
      }),
    );
  } finally {
    await Promise.all(worlds.map((w) => w.close()));
  }
  return records;
}

/** Runs per fault × outcome, then exit 9 by cause, per sandbox and cache sharing. */
export function formatTable(records: readonly RunRecord[]): string {
  const table = (rows: string[][]): string[] => {
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
    return rows.map((row) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  };
  const count = (list: readonly RunRecord[], test: (r: RunRecord) => boolean) => String(list.filter(test).length);
  const byFault = [
    ['proxy fault', ...OUTCOMES, 'total'],
    ...PROXY_FAULTS.map((fault) => {
      const mine = records.filter((r) => r.fault === fault);
      return [fault, ...OUTCOMES.map((o) => count(mine, (r) => r.outcome === o)), String(mine.length)];
    }),
    ['all', ...OUTCOMES.map((o) => count(records, (r) => r.outcome === o)), String(records.length)],
  ];
  const nines = records.filter((r) => r.code === 9);
  const byCause = [
    ['exit 9 by cause', ...CAUSES, 'total'],
    ...PROXY_FAULTS.map((fault) => {
      const mine = nines.filter((r) => r.fault === fault);
      return [fault, ...CAUSES.map((c) => count(mine, (r) => r.cause === c)), String(mine.length)];
    }),
    ['all', ...CAUSES.map((c) => count(nines, (r) => r.cause === c)), String(nines.length)],
  ];
  const split = WORLDS.flatMap((world) =>
    [true, false].map((sharing) => {
      const mine = records.filter((r) => r.world === world && r.sharing === sharing);
      return `${world}, ${sharing ? 'shared cache' : 'separate caches'}: ${mine.length} runs, ${count(mine, (r) => r.outcome === 'VIOLATION')} violations, ${count(mine, (r) => r.outcome === 'cross-machine')} cross-machine, ${count(mine, (r) => r.code === 9)} exit 9`;
    }),
  );
  return [...table(byFault), '', ...table(byCause), '', ...split].join('\n');
}

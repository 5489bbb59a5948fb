// `show --job` figures for `npm run bench` (section `job`), called by scripts/bench.ts:
// 1. a journaled job of 1,000,000 items (100 tasks of 10,000, made by `create --journal`) against the sandbox at
//    `--rate-limit 0 --item-ms 0`: `show --job -o ndjson` beside a shell loop of `curl | jq -c '.data.items[]'` over the
//    journal's task ids (output to /dev/null); a warm-up each, then the median of 3, interleaved; peak RSS of each;
// 2. a job of 150 tasks against a sandbox at its 100/min limit: the GETs it makes (one per task) and the 429s (none).
import { createWriteStream, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import type { ScaleBenchTools } from './bench-scale.ts';

/** What the bench hands this section: the scale section's tools, plus `measured` (peak RSS of one command). */
export type JobBenchTools = Pick<
  ScaleBenchTools,
  'row' | 'skip' | 'log' | 'notes' | 'run' | 'hasTool' | 'NODE' | 'BIN' | 'WORK' | 'cliEnv' | 'loadSandbox'
> & {
  measured: (
    script: string,
    args: string[],
    env: NodeJS.ProcessEnv,
    haveTime: boolean,
  ) => Promise<{ code: number | null; stderr: string; wallMs: number; rssKb: number }>;
};

const TASKS = 100;
const PER_TASK = 10_000;
const RUNS = 3;
const SERVICE = 'domain_check_availability';
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const mb = (kb: number): string => `${Math.round(kb / 1024)} MB`;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function itemsFile(WORK: string): Promise<string> {
  const file = join(WORK, `job-items-${TASKS * PER_TASK}.txt`);
  const out = createWriteStream(file);
  for (let i = 0; i < TASKS * PER_TASK; i += PER_TASK) {
    let text = '';
    for (let j = i; j < i + PER_TASK; j++) text += `${j % 1000 === 7 ? 'fail-' : ''}job-${j.toString(36)}.com\n`;
    if (!out.write(text)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return file;
}

const TASKCTL = '"$1" "$2" show --job "$3" -o ndjson > /dev/null';
const CURL_JQ =
  'for id in $(jq -r \'select(.type == "created") | .task\' "$1"); do ' +
  'curl -s -H "X-API-Key: $2" "$3/tasks/$id" | jq -c \'.data.items[]\'; done > /dev/null';

export async function benchShowJob(tools: JobBenchTools): Promise<void> {
  const { log, row, skip, run, measured, NODE, BIN, WORK, cliEnv } = tools;
  const figure = `\`show --job\` of ${(TASKS * PER_TASK).toLocaleString('en')} items (${TASKS} tasks)`;
  if (!(await tools.hasTool('jq')) || !(await tools.hasTool('curl'))) {
    skip(figure, 'jq or curl not found');
    return;
  }
  const haveTime = await tools.hasTool('/usr/bin/time', ['-f', '%M', 'true']);
  const { startSandbox } = await tools.loadSandbox();
  const sandbox = await startSandbox({ port: 0, rateLimit: 0, itemMs: 0, balance: 100_000_000 });
  try {
    const env = cliEnv({ TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey });
    const journal = join(WORK, 'job.jsonl');
    rmSync(journal, { force: true });
    log(`  creating the job (${TASKS} tasks of ${PER_TASK.toLocaleString('en')}) with create --journal`);
    const file = await itemsFile(WORK);
    const args = ['create', SERVICE, '-f', file, '--chunk-size', String(PER_TASK), '--journal', journal, '-y', '-q'];
    const created = await run(NODE, [BIN, ...args], { env, timeoutMs: 900_000 });
    if (created.code !== 0) {
      skip(figure, `create exited ${created.code}: ${created.stderr.split('\n')[0]}`);
      return;
    }
    const cli = [TASKCTL, [NODE, BIN, journal]] as const;
    const loop = [CURL_JQ, [journal, sandbox.apiKey, sandbox.url]] as const;
    const times = { cli: [] as number[], loop: [] as number[], cliRss: [] as number[], loopRss: [] as number[] };
    for (let round = 0; round <= RUNS; round++) {
      const a = await measured(cli[0], [...cli[1]], env, haveTime);
      if (a.code !== 0) {
        skip(figure, `show --job exited ${a.code}: ${a.stderr.split('\n')[0]}`);
        return;
      }
      const b = await measured(loop[0], [...loop[1]], env, haveTime);
      if (round === 0) continue; // the warm-up
      times.cli.push(a.wallMs);
      times.cliRss.push(a.rssKb);
      times.loop.push(b.wallMs);
      times.loopRss.push(b.rssKb);
    }
    const [cliMs, loopMs] = [median(times.cli), median(times.loop)];
    row(
      `${figure}: wall`,
      secs(cliMs),
      `${secs(loopMs)} (curl + jq loop)`,
      `${(cliMs / loopMs).toFixed(2)}×`,
      '≤ 0.5×',
      cliMs <= 0.5 * loopMs,
    );
    // Each round's own ratio (the two ran one after the other): the spread the median hides on a shared machine.
    const rounds = times.cli.map((ms, i) => (ms / (times.loop[i] ?? NaN)).toFixed(2)).join(', ');
    log(`  show --job / loop by round: ${rounds}`);
    const rss = median(times.cliRss);
    row(
      `${figure}: peak RSS`,
      mb(rss),
      `${mb(median(times.loopRss))} (largest process of the loop)`,
      '',
      '≤ 300 MB',
      rss <= 300 * 1024,
    );
    tools.notes.push(
      `show --job (ratios by round ${rounds}): \`taskctl show --job FILE -o ndjson > /dev/null\` beside \`for id in <the journal's task ids>; do curl -s …/tasks/$id | jq -c '.data.items[]'; done > /dev/null\`, sandbox at --rate-limit 0 --item-ms 0; a warm-up, then the median of ${RUNS} runs each, interleaved`,
    );
  } finally {
    await sandbox.close();
  }
  await benchRateLimited(tools);
}

/** 150 tasks at the sandbox's 100/min: one GET per task, no 429, and the wait the limit asks for (the next minute). */
async function benchRateLimited(tools: JobBenchTools): Promise<void> {
  const { log, row, run, NODE, BIN, WORK, cliEnv } = tools;
  const count = 150;
  log(`  show --job of ${count} tasks at the sandbox's 100/min limit`);
  const { startSandbox } = await tools.loadSandbox();
  const sandbox = await startSandbox({ port: 0, rateLimit: 100, itemMs: 0, balance: 1_000_000 });
  try {
    // The limit counts per key: the tasks are created under keys rotated away, and show starts with a fresh budget.
    const ids: number[] = [];
    let key = sandbox.apiKey;
    while (ids.length < count) {
      for (let i = 0; i < 90 && ids.length < count; i++) {
        const n = ids.length;
        const items = Array.from({ length: 100 }, (_, j) => `r${n}-${j}.com`);
        const response = await fetch(`${sandbox.url}/tasks`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ service: SERVICE, items }),
        });
        ids.push(((await response.json()) as { data: { id: number } }).data.id);
      }
      key = (
        (await (await fetch(`${sandbox.origin}/__sandbox/rotate-key`, { method: 'POST' })).json()) as {
          apiKey: string;
        }
      ).apiKey;
    }
    const journal = join(WORK, 'job-limited.jsonl');
    await writeJournal(journal, sandbox.url, key, ids, 100);
    // The sandbox's windows are whole minutes: starting just after one begins, 100 GETs fit in it and the rest must
    // wait for the next, so the limit is met every run (120 GETs across a boundary could pass without waiting).
    await new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() % 60_000) + 200));
    await fetch(`${sandbox.origin}/__sandbox/stats/reset`, { method: 'POST' });
    const env = cliEnv({ TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: key });
    const result = await run(NODE, [BIN, 'show', '--job', journal, '-o', 'ndjson'], { env, timeoutMs: 300_000 });
    const stats = (await (await fetch(`${sandbox.origin}/__sandbox/stats`)).json()) as {
      rateLimited: number;
      requests: Record<string, number>;
    };
    const gets = stats.requests['GET /api/v1/tasks/:id'] ?? 0;
    const lines = result.stdout.split('\n').filter(Boolean).length;
    row(
      `\`show --job\` of ${count} tasks at 100/min: GETs, 429s`,
      `${gets} GETs, ${stats.rateLimited} 429s, ${secs(result.wallMs)}, exit ${result.code}, ${lines.toLocaleString('en')} items`,
      '',
      '',
      `${count} GETs, 0 429s, ≥ 1 minute window waited`,
      gets === count &&
        stats.rateLimited === 0 &&
        result.code === 0 &&
        lines === count * 100 &&
        result.wallMs >= 55_000,
    );
  } finally {
    await sandbox.close();
  }
}

/** The journal `create --journal` would have written for `ids` (chunks of `size`), under `key` on `baseUrl`. */
async function writeJournal(path: string, baseUrl: string, key: string, ids: number[], size: number): Promise<void> {
  const { accountKey } = await import('../src/store/cache.ts');
  const job = {
    type: 'job',
    version: 1,
    created_at: new Date().toISOString(),
    service: SERVICE,
    base_url: baseUrl,
    account: accountKey(baseUrl, key),
    chunk_size: size,
    format: null,
    column: null,
    validate: true,
    keep_duplicates: false,
    skip_invalid: false,
    inputs: [],
    items: ids.length * size,
    items_sha256: '',
    chunks: ids.length,
  };
  const created = ids.map((task, i) => ({ type: 'created', chunk: i + 1, task, cost: size, how: 'answered' }));
  const done = { type: 'done', tasks: ids.length, items: ids.length * size, cost: ids.length * size };
  writeFileSync(path, [job, ...created, done].map((record) => `${JSON.stringify(record)}\n`).join(''));
}

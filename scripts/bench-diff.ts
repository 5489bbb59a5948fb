// `taskctl diff` figures for `npm run bench` (section `diff`), called by scripts/bench.ts: two exports of N items as
// `show -o ndjson` writes them (the second in another order, 1% of the items changed), compared by
// `taskctl diff A B -o ndjson` beside the baseline `jq -c '[.target,.status,.available]' | LC_ALL=C sort` on each side
// then `LC_ALL=C comm -3`, each with its wall time and peak RSS (/usr/bin/time -f %M). The run files go to a fresh
// TMPDIR, which must be empty afterwards, also after a SIGINT sent while they exist. 1,000,000 items: a warm-up, then
// the median of 3; 10,000,000: one run each (minutes on a shared 2-core machine). Generated files stay in .bench/.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ScaleBenchTools } from './bench-scale.ts';

export type DiffBenchTools = Pick<
  ScaleBenchTools,
  'row' | 'skip' | 'log' | 'notes' | 'run' | 'hasTool' | 'NODE' | 'BIN' | 'WORK' | 'cliEnv'
>;

const mb = (kb: number): string => `${Math.round(kb / 1024)} MB`;
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** The two exports of `count` items: `after` lists them in another order and flips `available` on every 100th. */
async function exports(WORK: string, count: number): Promise<{ before: string; after: string }> {
  const before = join(WORK, `diff-${count}-before.ndjson`);
  const after = join(WORK, `diff-${count}-after.ndjson`);
  const write = async (path: string, order: (i: number) => number, changed: (n: number) => boolean) => {
    if (existsSync(path) && statSync(path).size > 0) return;
    const out = createWriteStream(path);
    for (let i = 0; i < count; i += 10_000) {
      let text = '';
      for (let j = i; j < Math.min(count, i + 10_000); j++) {
        const n = order(j);
        const available = (n % 3 === 0) !== changed(n);
        text += `{"task":${1 + Math.floor(j / 10_000)},"target":"host-${n.toString(36)}.example-${n % 97}.com","status":"completed","available":${String(available)},"error":null}\n`;
      }
      if (!out.write(text)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
  };
  // A stride coprime with the count walks every item once, in an order unrelated to the targets' sort order.
  const stride = (k: number) => {
    let step = k;
    while (gcd(step, count) !== 1) step++;
    return (j: number) => (j * step) % count;
  };
  await write(before, stride(7_919), () => false);
  await write(after, stride(104_729), (n) => n % 100 === 0);
  return { before, after };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

export async function benchDiff(tools: DiffBenchTools, sizes: readonly number[]): Promise<void> {
  const { row, skip, log, notes, run, hasTool, NODE, BIN, WORK, cliEnv } = tools;
  if (!(await hasTool('/usr/bin/time', ['-f', '%M', 'true']))) {
    skip('`diff` figures', '/usr/bin/time not found');
    return;
  }
  const haveJq = await hasTool('jq');
  const rssFile = join(WORK, 'maxrss-diff.txt');
  const tmp = join(WORK, 'diff-tmp');
  const timed = async (script: string, args: string[], env: Record<string, string>) => {
    rmSync(rssFile, { force: true });
    const result = await run('/usr/bin/time', ['-f', '%M %U %S', '-o', rssFile, 'sh', '-c', script, 'sh', ...args], {
      env,
      timeoutMs: 3_600_000,
    });
    const [rss, user, sys] = existsSync(rssFile)
      ? (readFileSync(rssFile, 'utf8').trim().split('\n').pop() ?? '').split(' ').map(Number)
      : [];
    return { ...result, rssKb: rss ?? NaN, cpuMs: ((user ?? NaN) + (sys ?? NaN)) * 1000 };
  };
  for (const count of sizes) {
    const label = count.toLocaleString('en');
    log(`  diff of two ${label}-item exports`);
    const { before, after } = await exports(WORK, count);
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    const env = cliEnv({ TMPDIR: tmp });
    const runs = count >= 10_000_000 ? 1 : 3;
    const ours: Array<{ wallMs: number; rssKb: number; cpuMs: number }> = [];
    const theirs: Array<{ wallMs: number; rssKb: number; cpuMs: number }> = [];
    let leftover: string[] = [];
    let changes = NaN;
    for (let i = runs === 1 ? 1 : 0; i <= runs; i++) {
      const mine = await timed('"$1" "$2" diff "$3" "$4" -o ndjson | wc -l', [NODE, BIN, before, after], env);
      if (mine.code !== 0) throw new Error(`diff exited ${String(mine.code)}: ${mine.stderr.slice(0, 300)}`);
      changes = Number(mine.stdout.trim());
      if (changes !== count / 100) throw new Error(`diff found ${changes} changes, not ${count / 100}`);
      leftover = [...leftover, ...readdirSync(tmp)];
      let baseline: { wallMs: number; rssKb: number; cpuMs: number } | undefined;
      if (haveJq) {
        baseline = await timed(
          `jq -c '[.target,.status,.available]' "$1" | LC_ALL=C sort > "$3.sorted" && ` +
            `jq -c '[.target,.status,.available]' "$2" | LC_ALL=C sort > "$4.sorted" && ` +
            `LC_ALL=C comm -3 "$3.sorted" "$4.sorted" > /dev/null; rm -f "$3.sorted" "$4.sorted"`,
          [before, after, join(WORK, 'diff-a'), join(WORK, 'diff-b')],
          { ...process.env, TMPDIR: WORK },
        );
      }
      if (i === 0) continue; // warm-up
      ours.push(mine);
      if (baseline) theirs.push(baseline);
    }
    const wall = median(ours.map((r) => r.wallMs));
    const rss = Math.max(...ours.map((r) => r.rssKb));
    const baseWall = theirs.length > 0 ? median(theirs.map((r) => r.wallMs)) : NaN;
    const baseRss = theirs.length > 0 ? Math.max(...theirs.map((r) => r.rssKb)) : NaN;
    // Twice as fast as the shell at 1,000,000 items; 10,000,000 leave less room (the run files are read back).
    const target = count >= 10_000_000 ? 0.7 : 0.5;
    row(
      `\`diff\`, two ${label}-item exports (1% changed): wall time`,
      `${secs(wall)} (${changes.toLocaleString('en')} changes)`,
      haveJq ? `jq \\| sort + comm ${secs(baseWall)}` : '',
      haveJq ? `${(wall / baseWall).toFixed(2)}×` : '',
      haveJq ? `≤ ${target}× jq \\| sort + comm` : '',
      haveJq ? wall <= baseWall * target : undefined,
    );
    // CPU time (user + sys, every process of each side): what a loaded machine's wall time blurs.
    const cpu = median(ours.map((r) => r.cpuMs));
    const baseCpu = theirs.length > 0 ? median(theirs.map((r) => r.cpuMs)) : NaN;
    row(
      `\`diff\`, two ${label}-item exports: CPU time (user + sys)`,
      secs(cpu),
      haveJq ? `jq \\| sort + comm ${secs(baseCpu)}` : '',
      haveJq ? `${(cpu / baseCpu).toFixed(2)}×` : '',
      haveJq ? `≤ ${target}× jq \\| sort + comm` : '',
      haveJq ? cpu <= baseCpu * target : undefined,
    );
    row(
      `\`diff\`, two ${label}-item exports: peak RSS`,
      mb(rss),
      haveJq ? `jq \\| sort + comm ${mb(baseRss)}` : '',
      '',
      '≤ 300 MB',
      rss <= 300 * 1024,
    );
    row(
      `\`diff\`, ${label} items: run files left in TMPDIR`,
      leftover.length === 0 ? 'none' : leftover.join(', '),
      '',
      '',
      'none',
      leftover.length === 0,
    );
    if (count === sizes.at(-1)) await interrupted(tools, before, after, tmp, label);
  }
  notes.push(
    "diff: two exports as `show -o ndjson` writes them (`{task, target, status, available, error}` a line, ~100 bytes), the second in another order with every 100th item's `available` flipped; taskctl's output to `wc -l`; the baseline is `jq -c '[.target,.status,.available]' FILE | LC_ALL=C sort > FILE.sorted` for each side in turn, then `LC_ALL=C comm -3` (its RSS is the largest process of the pipeline); 1,000,000 items: warm-up then median of 3, 10,000,000: one run",
  );
}

/** Ctrl-C while the run files exist: exit 130, and TMPDIR empty afterwards. */
async function interrupted(tools: DiffBenchTools, before: string, after: string, tmp: string, label: string) {
  const { row, NODE, BIN, cliEnv } = tools;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const child = spawn(NODE, [BIN, 'diff', before, after, '-o', 'ndjson'], {
    env: cliEnv({ TMPDIR: tmp }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let spilled = false;
  for (let waited = 0; waited < 600_000 && child.exitCode === null; waited += 50) {
    if (readdirSync(tmp).length > 0 && readdirSync(join(tmp, readdirSync(tmp)[0] ?? '')).length > 0) {
      spilled = true;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGINT');
  const [code] = await exited;
  const left = readdirSync(tmp);
  row(
    `\`diff\`, ${label} items, SIGINT while run files exist: exit code, run files left`,
    `${spilled ? '' : 'no run file seen before the signal; '}exit ${String(code)}, ${left.length === 0 ? 'none left' : `left: ${left.join(', ')}`}`,
    '',
    '',
    'exit 130, none left',
    spilled && code === 130 && left.length === 0,
  );
  if (code !== 130) tools.log(`  diff after SIGINT: ${stderr.slice(0, 300)}`);
}

/**
 * The hostile matrix (test/README.md), run by hand (not in the suite: about five minutes): every hostile case of
 * test/hardening/hostile-server.ts against balance, show, list --all, wait, watch and create --wait, through the built
 * bin under /usr/bin/time. Prints a markdown table of exit code, wall time and peak RSS per cell, marking with `!` a
 * cell past its time bound (the request budget, plus the outage tolerance for the waits, plus 5 s) or past 300 MB;
 * exit 1 when a cell is past 300 MB. Broken servers run with `--request-timeout 5s`; big answers (60 MiB within the
 * cap) with the default budget. The `show` cell of `tiny-items` is the memory bound of `show -o json` over 1,000,000
 * items (exit 0 under 300 MB), which the suite leaves to this script: about 13 s of CPU for one process. The suite's
 * hostile rows run in-process; their peak RSS is here: `balance` × `flood-chunked` (H2), `show` × `nest` (H4 in JSON),
 * `show (ndjson)` × `long-strings` (H14; that column only for the big answers).
 *
 *   npm run build && npx tsx scripts/hostile-matrix.ts [case ...]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostileServer, type HostileMode } from '../test/hardening/hostile-server.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'taskctl.js');
const BUDGET_S = 5;
const TOLERANCE_S = 10;
const RSS_LIMIT_MB = 300;

/** Broken servers, then big answers within the body cap (their time is the work of reading 60 MiB, not a wait). */
const CASES: Array<{ mode: HostileMode; what: string; big?: boolean }> = [
  { mode: 'drip', what: 'body dripped a byte at a time' },
  { mode: 'slow-headers', what: 'headers never finish' },
  { mode: 'flood-chunked', what: 'endless chunked body' },
  { mode: 'flood-length', what: 'Content-Length 1 GiB' },
  { mode: 'cut', what: 'connection closed mid-body' },
  { mode: 'bad-gateway', what: 'HTML 502 on every request' },
  { mode: 'limited', what: '429 on every request' },
  { mode: 'redirect-loop', what: 'redirect loop' },
  { mode: 'nest', what: 'JSON nested 1,000,000 deep' },
  { mode: 'wide', what: '3,000,000 empty objects in one value' },
  { mode: 'odd', what: 'bare JSON string (wrong shape)' },
  { mode: 'down-later', what: 'answers once, then 502s' },
  { mode: 'long-strings', what: '60 MiB of long strings', big: true },
  { mode: 'non-latin', what: '60 MiB of CJK strings', big: true },
  { mode: 'tiny-items', what: '1,000,000 tiny items (60 MiB)', big: true },
];

const WAIT_FLAGS = ['--outage-tolerance', `${TOLERANCE_S}s`, '--timeout', '60s', '--interval', '1s'];
const COMMANDS: Array<{ name: string; args: string[]; waits: boolean; bigOnly?: boolean }> = [
  { name: 'balance', args: ['balance'], waits: false },
  { name: 'show', args: ['show', '1', '-o', 'json'], waits: false },
  // A table of the big answers: the first 1,000 rows of 1,000,000 tiny items, every row of the long strings.
  { name: 'show (table)', args: ['show', '1', '-o', 'table'], waits: false },
  // Records written as they are made: the suite checks the pieces (hostile H14), this cell the memory.
  { name: 'show (ndjson)', args: ['show', '1', '-o', 'ndjson'], waits: false, bigOnly: true },
  { name: 'list --all', args: ['list', '--all', '-o', 'json'], waits: false },
  { name: 'wait', args: ['wait', '1', '-o', 'json', ...WAIT_FLAGS], waits: true },
  { name: 'watch', args: ['watch', '1', '-o', 'ndjson', ...WAIT_FLAGS], waits: true },
  {
    name: 'create --wait',
    args: ['create', 'domain_check_availability', 'a.com', '--yes', '--wait', '-o', 'json', ...WAIT_FLAGS],
    waits: true,
  },
];

interface Cell {
  code: number | null;
  seconds: number;
  rssMb: number;
}

async function run(args: string[], env: Record<string, string>, limitMs: number): Promise<Cell> {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-matrix-'));
  const rssFile = join(dir, 'rss');
  const started = performance.now();
  try {
    const child = spawn('/usr/bin/time', ['-f', '%M', '-o', rssFile, process.execPath, BIN, ...args], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...env },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), limitMs + 60_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(killer);
    const seconds = (performance.now() - started) / 1000;
    const lines = readFileSync(rssFile, 'utf8').trim().split('\n');
    return { code, seconds, rssMb: Number(lines[lines.length - 1]) / 1024 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const cases = wanted.length > 0 ? CASES.filter((c) => wanted.includes(c.mode)) : CASES;
  const home = mkdtempSync(join(tmpdir(), 'taskctl-matrix-home-'));
  const server = await hostileServer({ dripMs: 100 });
  const header = ['case', ...COMMANDS.map((c) => c.name)];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  let worstRss = 0;
  try {
    for (const hostile of cases) {
      const cells: string[] = [];
      for (const command of COMMANDS) {
        if (command.bigOnly === true && hostile.big !== true) {
          cells.push('–');
          continue;
        }
        // Each cell on a server of its own mode state ('down-later' answers once per server).
        const own = hostile.mode === 'down-later' ? await hostileServer({ dripMs: 100 }) : server;
        const env = {
          TASKCTL_CONFIG_DIR: join(home, 'config'),
          TASKCTL_CACHE_DIR: join(home, 'cache'),
          TASKCTL_STATE_DIR: join(home, 'state'),
          TASKCTL_BASE_URL: own.baseUrl(hostile.mode),
          TASKCTL_API_KEY: 'sk_matrix_0000',
        };
        const limitS = BUDGET_S + (command.waits ? TOLERANCE_S + BUDGET_S : 0) + 5;
        // A big answer keeps the default 35 s budget: reading and parsing 60 MiB on a busy machine may take over 5 s.
        const budget = hostile.big === true ? [] : ['--request-timeout', `${BUDGET_S}s`];
        const cell = await run([...budget, ...command.args], env, limitS * 1000);
        if (own !== server) await own.close();
        worstRss = Math.max(worstRss, cell.rssMb);
        const late = !hostile.big && cell.seconds > limitS;
        const heavy = cell.rssMb > RSS_LIMIT_MB;
        cells.push(
          `${cell.code ?? 'killed'} · ${cell.seconds.toFixed(1)} s${late ? '!' : ''} · ${Math.round(cell.rssMb)} MB${heavy ? '!' : ''}`,
        );
        process.stderr.write('.');
      }
      lines.push(`| ${hostile.what} (\`${hostile.mode}\`) | ${cells.join(' | ')} |`);
    }
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
  process.stderr.write('\n');
  process.stdout.write(`${lines.join('\n')}\n\nworst peak RSS: ${Math.round(worstRss)} MB\n`);
  if (worstRss > RSS_LIMIT_MB) process.exitCode = 1;
}

await main();

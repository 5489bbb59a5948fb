// Peak RSS of `taskctl resume` on a large journal (docs/performance.md#a-create-that-is-a-job), run by hand after
// `npm run build`: `tsx scripts/resume-memory.ts [--chunks 60000] [--bin PATH] [--keep]` (`--bin`: another build's
// bin/taskctl.js, to compare). It writes the journal of a job of that
// many chunks (a `send` listing 100 seven-digit task ids and a `created` each, as a job of that size writes; about
// 70 MB for 60,000), all but the last chunk created, then runs `resume` on it under `/usr/bin/time -f %M`. The job's
// input is not there, so resume stops at its input check, after reading the journal and before any request (the base
// URL is a closed loopback port): what is measured is what reading the journal takes. Prints the peak RSS, the wall
// time, the exit code and the journal's size.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const chunks = Number(option('--chunks') ?? 60_000);
const keep = args.includes('--keep');
const BASE_URL = 'http://127.0.0.1:9/api/v1';
const KEY = 'resume-memory-key';
const SERVICE = 'domain_check_availability';
const CHUNK_SIZE = 10;

const dir = mkdtempSync(join(tmpdir(), 'taskctl-resume-memory-'));
const journal = join(dir, 'job.jsonl');
const account = createHash('sha256').update(`${BASE_URL}\n${KEY}`).digest('hex').slice(0, 16);
const fd = openSync(journal, 'w');
const put = (record: object): void => {
  writeSync(fd, `${JSON.stringify(record)}\n`);
};
put({
  type: 'job',
  version: 1,
  id: 'j-m5xunpc0abcd',
  created_at: new Date(Date.now() - 3_600_000).toISOString(),
  service: SERVICE,
  base_url: BASE_URL,
  account,
  chunk_size: CHUNK_SIZE,
  format: null,
  column: null,
  validate: true,
  keep_duplicates: false,
  skip_invalid: false,
  inputs: [{ kind: 'file', path: join(dir, 'items.txt'), format: 'lines', size: 1, sha256: 'x'.repeat(64) }],
  items: chunks * CHUNK_SIZE,
  items_sha256: 'y'.repeat(64),
  chunks,
});
const firstId = 4_000_000;
const sentAt = Date.now() - 3_000_000;
for (let chunk = 1; chunk <= chunks; chunk++) {
  const task = firstId + chunk;
  const before = Array.from({ length: 100 }, (_, i) => task - 100 + i);
  const digest = createHash('sha256').update(String(chunk)).digest('hex');
  put({
    type: 'send',
    chunk,
    first: (chunk - 1) * CHUNK_SIZE,
    count: CHUNK_SIZE,
    sha256: digest,
    items_digest: digest.slice(0, 32),
    sent_at: sentAt + chunk,
    settle_after: sentAt + chunk + 37_000,
    before,
    before_complete: true,
    server_offset: 12,
  });
  if (chunk < chunks) put({ type: 'created', chunk, task, cost: 10, how: 'created' });
}
closeSync(fd);

const bin = resolve(option('--bin') ?? join(import.meta.dirname, '..', 'bin', 'taskctl.js'));
const home = join(dir, 'home');
const env = {
  ...process.env,
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_CACHE_HOME: join(home, '.cache'),
  XDG_STATE_HOME: join(home, '.state'),
  TASKCTL_BASE_URL: BASE_URL,
  TASKCTL_API_KEY: KEY,
  NO_COLOR: '1',
};
const started = Date.now();
const run = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, bin, 'resume', journal], {
  env,
  encoding: 'utf8',
});
const wallMs = Date.now() - started;
const lines = run.stderr.trim().split('\n');
const rssKb = Number(lines.at(-1));
console.log(`journal: ${chunks.toLocaleString('en')} chunks, ${(statSync(journal).size / 1e6).toFixed(1)} MB`);
console.log(`resume: exit ${run.status}, peak RSS ${Math.round(rssKb / 1024)} MB, ${(wallMs / 1000).toFixed(1)} s`);
console.log(`its stderr: ${lines.slice(0, -1).join(' / ')}`);
if (keep) console.log(`kept in ${dir}`);
else rmSync(dir, { recursive: true, force: true });

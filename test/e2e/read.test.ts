/**
 * Read commands against a sandbox on port 0, every output format and the error paths: `main()` in this process; the bin
 * is spawned only for `--version` (its shim) and a reader of stdout or stderr that goes away (a real pipe).
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, exitOf, startWorld, type E2EWorld } from './spawn-cli.js';
import { missing, skippedUnless } from '../skip-reason.js';

let world: E2EWorld;

/** A task straight on the sandbox (the subject here is reading it). */
const createTask = async (service: string, items: string[]) => (await world.createTask(service, items)).id;

let okTask: number;
let failingItemsTask: number;

beforeAll(async () => {
  world = await startWorld({ itemMs: 0 });
  okTask = await createTask('domain_check_availability', ['example.com', 'example.org']);
  failingItemsTask = await createTask('domain_check_availability', ['good.com', 'fail-bad.com']);
  for (let i = 0; i < 5; i += 1) await createTask('email_verify', [`user${i}@example.com`]);
});
afterAll(() => world.close());

describe('services', () => {
  it('prints tsv when piped: one service per line, fixed columns, no header, no colour', async () => {
    const result = await world.inProcess(['services']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    expect(lines[0]!.split('\t').slice(0, 4)).toEqual(['domain_check_availability', expect.any(String), '1', 'coins']);
    expect(result.stdout).not.toContain('\x1b');
    expect(result.stderr).toBe('');
  });

  it('prints the API data as JSON with -o json and --json', async () => {
    for (const flags of [['-o', 'json'], ['--json']]) {
      const result = await world.inProcess(['services', ...flags]);
      expect(result.code).toBe(0);
      const services = JSON.parse(result.stdout) as Array<{ service: string; pricing: number }>;
      expect(services.find((s) => s.service === 'domain_whois_history')?.pricing).toBe(5);
    }
  });

  it('prints csv with a header and ndjson one object a line', async () => {
    const csv = await world.inProcess(['services', '-o', 'csv']);
    expect(csv.stdout.split('\n')[0]).toBe('service,display_name,pricing,currency,description');
    const ndjson = await world.inProcess(['services', '-o', 'ndjson']);
    const objects = ndjson.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { service: string });
    expect(objects.map((o) => o.service)).toContain('fanpage_extract_contact');
  });

  it('prints a table with -o table, without escape codes when not a terminal', async () => {
    const result = await world.inProcess(['services', '-o', 'table']);
    expect(result.stdout).toMatch(/SERVICE\s+NAME\s+PRICE/);
    expect(result.stdout).not.toContain('\x1b');
  });

  it('honours FORCE_COLOR for the table', async () => {
    const result = await world.inProcess(['services', '-o', 'table'], { env: { FORCE_COLOR: '1' } });
    expect(result.stdout).toContain('\x1b[');
  });
});

describe('balance', () => {
  it('prints the balance in every format', async () => {
    const tsv = await world.inProcess(['balance']);
    expect(tsv.stdout.trim()).toMatch(/^\d+\tcoins$/);
    const json = JSON.parse((await world.inProcess(['balance', '-o', 'json'])).stdout) as {
      balance: number;
      currency: string;
    };
    expect(json.currency).toBe('coins');
    expect(Number(tsv.stdout.split('\t')[0])).toBe(json.balance);
    const csv = await world.inProcess(['balance', '-o', 'csv']);
    expect(csv.stdout.trim().split('\n')).toEqual(['balance,currency', `${json.balance},coins`]);
    const table = await world.inProcess(['balance', '-o', 'table']);
    expect(table.stdout).toBe(`${json.balance.toLocaleString('en')} coins\n`);
  });
});

describe('list', () => {
  it('lists tasks newest first as tsv with the documented column order', async () => {
    const result = await world.inProcess(['list']);
    expect(result.code).toBe(0);
    const rows = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split('\t'));
    expect(rows).toHaveLength(7);
    expect(rows[0]![1]).toBe('email_verify');
    const ok = rows.find((row) => row[0] === String(okTask))!;
    expect(ok.slice(1, 5)).toEqual(['domain_check_availability', 'completed', '2', '2']);
  });

  it('pages with --per-page/--page, streams every page with --all, and stops at --limit', async () => {
    const page2 = await world.inProcess(['list', '--per-page', '2', '--page', '2', '-q']);
    expect(page2.stdout.trim().split('\n')).toHaveLength(2);
    expect(page2.stderr).toBe('');
    const all = await world.inProcess(['list', '--per-page', '2', '--all', '-o', 'json']);
    const tasks = JSON.parse(all.stdout) as Array<{ id: number }>;
    expect(tasks.map((t) => t.id)).toEqual([...tasks.map((t) => t.id)].sort((a, b) => b - a));
    expect(tasks).toHaveLength(7);
    const limited = await world.inProcess(['list', '--all', '--per-page', '2', '--limit', '3', '-o', 'ndjson']);
    expect(limited.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('filters client-side by --status and --service', async () => {
    const result = await world.inProcess(['list', '--all', '--service', 'domain_check_availability', '-o', 'json']);
    const ids = (JSON.parse(result.stdout) as Array<{ id: number }>).map((t) => t.id).sort();
    expect(ids).toEqual([okTask, failingItemsTask].sort());
    const none = await world.inProcess(['list', '--status', 'failed', '-o', 'json']);
    expect(JSON.parse(none.stdout)).toEqual([]);
  });

  it('refuses --per-page above 100 with a usage error', async () => {
    const result = await world.inProcess(['list', '--per-page', '101']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/per-page/);
    expect(result.stdout).toBe('');
  });
});

describe('show', () => {
  it('exports item results as csv: task, target, status, then the data fields', async () => {
    const result = await world.inProcess(['show', String(failingItemsTask), '-o', 'csv']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^task,target,status,available/);
    expect(lines).toHaveLength(3);
    expect(lines.find((l) => l.includes('fail-bad.com'))).toMatch(
      new RegExp(`^${failingItemsTask},fail-bad\\.com,failed,`),
    );
  });

  it('filters items with --items-status and prints JSON with the items', async () => {
    const result = await world.inProcess(['show', String(failingItemsTask), '--items-status', 'failed', '-o', 'json']);
    const task = JSON.parse(result.stdout) as { id: number; items: Array<{ target: string; status: string }> };
    expect(task.id).toBe(failingItemsTask);
    expect(task.items).toEqual([expect.objectContaining({ target: 'fail-bad.com', status: 'failed' })]);
  });

  it('prints a summary and an items table on -o table', async () => {
    const result = await world.inProcess(['show', String(okTask), '-o', 'table']);
    expect(result.stdout).toMatch(/completed/);
    expect(result.stdout).toMatch(/TARGET\s+STATUS\s+AVAILABLE/);
    expect(result.stdout).toContain('example.org');
  });

  it('prints ndjson and tsv item rows', async () => {
    const ndjson = await world.inProcess(['show', String(okTask), '-o', 'ndjson']);
    const rows = ndjson.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { target: string; status: string });
    expect(rows.map((r) => r.target)).toEqual(['example.com', 'example.org']);
    const tsv = await world.inProcess(['show', String(okTask)]);
    expect(tsv.stdout.trim().split('\n')[0]!.split('\t').slice(0, 3)).toEqual([
      String(okTask),
      'example.com',
      'completed',
    ]);
  });

  const hasJq = spawnSync('jq', ['--version']).status === 0;

  it.skipIf(!hasJq)(
    skippedUnless(
      "`show -o ndjson | jq 'select(.available)'` returns exactly the available domains",
      hasJq,
      missing('jq'),
    ),
    async () => {
      const domains = Array.from({ length: 12 }, (_, i) => `jq-check-${i}.com`);
      const id = await createTask('domain_check_availability', domains);
      const json = JSON.parse((await world.inProcess(['show', String(id), '-o', 'json'])).stdout) as {
        items: Array<{ target: string; data: { available: boolean } }>;
      };
      const available = json.items.filter((item) => item.data.available).map((item) => item.target);
      expect(available.length).toBeGreaterThan(0);
      expect(available.length).toBeLessThan(domains.length);
      const ndjson = await world.inProcess(['show', String(id), '-o', 'ndjson']);
      const jq = spawnSync('jq', ['-r', 'select(.available) | .target'], { input: ndjson.stdout, encoding: 'utf8' });
      expect(jq.status).toBe(0);
      expect(jq.stdout.trim().split('\n')).toEqual(available);
    },
  );

  it('keeps the same tsv columns, error last, with --items-status', async () => {
    const all = await world.inProcess(['show', String(failingItemsTask), '-o', 'tsv']);
    const failed = await world.inProcess(['show', String(failingItemsTask), '-o', 'tsv', '--items-status', 'failed']);
    const width = (text: string) =>
      new Set(
        text
          .trimEnd()
          .split('\n')
          .map((line) => line.split('\t').length),
      );
    expect(width(all.stdout)).toEqual(width(failed.stdout));
    expect(failed.stdout.split('\t')[1]).toBe('fail-bad.com');
    expect(failed.stdout.trimEnd().split('\t').at(-1)).not.toBe('');
  });

  it('exits 5 for an unknown task, naming it', async () => {
    const result = await world.inProcess(['show', '999999']);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/999999/);
    expect(result.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(2);
    expect(result.stdout).toBe('');
  });

  it('exits 2 for an id that is not a number', async () => {
    const result = await world.inProcess(['show', 'abc']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/invalid task id "abc"/);
  });
});

describe('show several tasks', () => {
  it('`show A B -o csv` has one header, the task column first, and every item of both', async () => {
    const result = await world.inProcess(['show', String(okTask), String(failingItemsTask), '-o', 'csv']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.filter((line) => line.startsWith('task,'))).toHaveLength(1);
    expect(lines[0]).toMatch(/^task,target,status,available,.*error$/);
    expect(lines.slice(1).map((line) => line.split(',').slice(0, 2))).toEqual([
      [String(okTask), 'example.com'],
      [String(okTask), 'example.org'],
      [String(failingItemsTask), 'good.com'],
      [String(failingItemsTask), 'fail-bad.com'],
    ]);
  });

  it('--items-status applies to every task; a missing one is exit 5 with nothing printed', async () => {
    const failed = await world.inProcess([
      'show',
      String(okTask),
      String(failingItemsTask),
      '--items-status',
      'failed',
    ]);
    expect(failed.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^${failingItemsTask}\tfail-bad\\.com\tfailed`)),
    ]);
    const missing = await world.inProcess(['show', String(okTask), '999999', '-o', 'csv']);
    expect(missing.code).toBe(5);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/999999/);
  });
});

describe('--columns and --since', () => {
  it('--columns chooses and orders columns; an unknown one is exit 2 listing the valid ones, a result field no item has an empty column', async () => {
    const list = await world.inProcess(['list', '--columns', 'status,id', '-o', 'csv']);
    expect(list.stdout.split('\n')[0]).toBe('status,id');
    const show = await world.inProcess(['show', String(okTask), '--columns', 'target,available']);
    expect(show.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^example\.com\t(true|false)$/),
      expect.stringMatching(/^example\.org\t(true|false)$/),
    ]);
    const services = await world.inProcess(['services', '--columns', 'service,pricing']);
    expect(services.stdout).toContain('domain_whois_history\t5\n');
    const bad = await world.inProcess(['list', '--columns', 'id,age']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'id, service, status, total_items, cost, created_at, finished_at, completed_items, failed_items',
    );
    const unseen = await world.inProcess(['show', String(okTask), '--columns', 'target,deliverable']);
    expect(unseen.code, unseen.stderr).toBe(0);
    expect(unseen.stdout).toBe('example.com\t\nexample.org\t\n');
    expect(unseen.stderr).toContain(
      'no item has the column "deliverable", printed empty (the columns seen: task, target, status, available, error)',
    );
  });

  it('--since keeps the tasks created within the window, --until the older ones', async () => {
    const recent = await world.inProcess(['list', '--since', '1h', '--all', '--per-page', '2', '-q']);
    expect(recent.code, recent.stderr).toBe(0);
    expect(recent.stdout.trim().split('\n').length).toBeGreaterThanOrEqual(7);
    const older = await world.inProcess(['list', '--until', '1h', '-q']);
    expect(older.code).toBe(0);
    expect(older.stdout).toBe('');
    const future = await world.inProcess([
      'list',
      '--since',
      new Date(Date.now() + 3_600_000).toISOString(),
      '-o',
      'json',
    ]);
    expect(JSON.parse(future.stdout)).toEqual([]);
  });
});

describe('errors and configuration', () => {
  it('exits 4 with a hint when no key is configured', async () => {
    const result = await world.inProcess(['balance'], { env: { TASKCTL_API_KEY: '' } });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/no API key configured/);
    expect(result.stderr).toMatch(/taskctl auth login/);
  });

  it('exits 4 when the key is rejected', async () => {
    const result = await world.inProcess(['balance'], { env: { TASKCTL_API_KEY: 'sk_wrong_key_123' } });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/Invalid or missing API key/);
    expect(result.stderr).not.toContain('sk_wrong_key_123');
  });

  it('exits 2 for plain http to a non-loopback host', async () => {
    const result = await world.inProcess(['balance', '--base-url', 'http://api.example.com']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/https/i);
  });

  it('exits 2 with a suggestion for an unknown command, and for an unknown flag', async () => {
    const command = await world.inProcess(['lst']);
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(/taskctl has no command "lst"/);
    expect(command.stderr).toMatch(/list/);
    const flag = await world.inProcess(['balance', '--frobnicate']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/taskctl balance has no flag --frobnicate/);
  });

  it('prints help with the exit-code table, and the version', async () => {
    const help = await world.inProcess(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Exit codes:/);
    expect(help.stdout).toMatch(/124\s+wait\/watch timed out/);
    // --version is answered by the bin's shim before main() loads: spawned.
    const version = await world.run(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('exits 8 naming the request when the service keeps failing', async () => {
    await world.admin('POST', '/__sandbox/faults', {
      method: 'GET',
      path: '/api/v1/balance',
      kind: 'status',
      status: 503,
      count: 4,
    });
    const result = await world.inProcess(['balance']);
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(/reading the balance/);
    await world.admin('DELETE', '/__sandbox/faults');
  });

  it('ends quietly with exit 0 when the reader of stdout goes away (| head -1)', async () => {
    // Async: the sandbox lives in this process and must keep answering while the pipeline runs.
    const script = `node ${JSON.stringify(BIN)} list --all --per-page 1 | head -1; echo "status=\${PIPESTATUS[0]}"`;
    const { stdout, stderr } = await promisify(execFile)('bash', ['-c', script], {
      env: { PATH: process.env.PATH ?? '', ...world.env },
    });
    const [row, status, ...rest] = stdout.trim().split('\n');
    expect(row?.split('\t')[0]).toMatch(/^\d+$/);
    expect({ status, rest }).toEqual({ status: 'status=0', rest: [] });
    expect(stderr).toBe('');
  });

  it("ends quietly with the command's own exit code when the reader of stderr goes away", async () => {
    // stderr's reader is closed before the process writes: its error line (task not found, exit 5) meets EPIPE.
    const child = spawn(process.execPath, [BIN, 'show', '999999'], {
      env: { PATH: process.env.PATH ?? '', ...world.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr.destroy();
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const { code } = await exitOf(child, { describe: () => `stdout so far: ${stdout}` });
    expect({ code, stdout }).toEqual({ code: 5, stdout: '' });
  });

  it('--sandbox needs no configuration at all', async () => {
    const result = await world.inProcess(['--sandbox', 'balance', '-o', 'json'], {
      env: { TASKCTL_BASE_URL: '', TASKCTL_API_KEY: '' },
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ balance: 10000, currency: 'coins' });
  });
});

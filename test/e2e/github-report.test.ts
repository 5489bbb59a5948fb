/** `--report junit=FILE` and `--report github` on create --wait, wait and show, against the sandbox: `main()` in this
 * process, the waits on a virtual clock shared with the sandbox (a one-off `--sandbox` in real time). */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAll, parseXml } from '../unit/report/xml.js';
import { FakeClock } from '../clock.js';
import { startWorld, type E2EWorld } from './spawn-cli.js';

let world: E2EWorld;
let dir: string;
/** The sandbox's clock, which the waits share: their sleeps move its tasks on at once. */
let clock: FakeClock;

beforeAll(async () => {
  clock = new FakeClock(Date.now());
  world = await startWorld({ clock });
  dir = mkdtempSync(join(tmpdir(), 'taskctl-report-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await world.close();
});

const summaryRows = (markdown: string) => markdown.split('\n').filter((line) => /^\| \d+ \|/.test(line));

describe('create --wait --report (GitHub Actions)', () => {
  it('writes a JUnit file, appends a job summary and annotates the failed item; exit 11', async () => {
    const junit = join(dir, 'out', 'junit.xml');
    const summary = join(dir, 'summary.md');
    writeFileSync(summary, '# an earlier step wrote this\n');
    const result = await world.inProcess(
      [
        '--sandbox',
        'create',
        'domain_check_availability',
        'ok.com',
        'fail-x.com',
        '--wait',
        '--report',
        `junit=${junit}`,
        '--report',
        'github',
      ],
      { realTime: true, env: { GITHUB_STEP_SUMMARY: summary, GITHUB_ACTIONS: 'true', CI: 'true' } },
    );
    expect(result.code, result.stderr).toBe(11);

    const doc = parseXml(readFileSync(junit, 'utf8'));
    expect(doc.name).toBe('testsuites');
    expect(doc.attrs).toMatchObject({ tests: '2', failures: '1', errors: '0', skipped: '0' });
    const [suite] = findAll(doc, 'testsuite');
    expect(suite!.attrs).toMatchObject({ tests: '2', failures: '1' });
    const cases = findAll(suite!, 'testcase');
    expect(cases.map((c) => [c.attrs.name, c.attrs.classname])).toEqual([
      ['ok.com', 'domain_check_availability'],
      ['fail-x.com', 'domain_check_availability'],
    ]);
    expect(findAll(cases[1]!, 'failure')).toHaveLength(1);

    const markdown = readFileSync(summary, 'utf8');
    expect(markdown.startsWith('# an earlier step wrote this\n')).toBe(true);
    expect(summaryRows(markdown)).toHaveLength(1);
    expect(summaryRows(markdown)[0]).toMatch(
      /^\| \d+ \| domain_check_availability \| ⚠️ completed \| 2 \| 1 \| 1 \| 2 \|$/,
    );

    // Workflow commands on stderr (the runner reads both streams); stdout stays data.
    expect(result.stderr).toMatch(/^::group::waiting for task \d+$/m);
    expect(result.stderr.indexOf('::endgroup::')).toBeGreaterThan(result.stderr.indexOf('::group::'));
    expect(result.stderr).toMatch(
      /^::error title=taskctl%3A task \d+ item failed \(domain_check_availability\)::fail-x\.com: .+$/m,
    );
    expect(result.stdout).not.toContain('::');
    // CI: plain timestamped progress, no escape codes.
    // (A task that ends before the first poll has only its final line, marked ✓ or ✗.)
    expect(result.stderr).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ (?:[✓✗] )?task \d+ /m);
    expect(result.stderr).not.toContain('\x1b');
  });
});

describe('wait --report', () => {
  it('writes one suite and one summary row per task; a failed task is an error (exit 10)', async () => {
    const ids: string[] = [];
    for (const items of [
      ['a.com', 'b.com'],
      ['c.com', 'taskfail-d.com', 'e.com'],
    ]) {
      ids.push(String((await world.createTask('domain_check_availability', items)).id));
    }
    const junit = join(dir, 'wait.xml');
    const summary = join(dir, 'wait.md');
    const result = await world.inProcess(['wait', ...ids, '--report', `junit=${junit}`, '--report', 'github'], {
      clock,
      env: { GITHUB_STEP_SUMMARY: summary },
    });
    expect(result.code, result.stderr).toBe(10);

    const doc = parseXml(readFileSync(junit, 'utf8'));
    const suites = findAll(doc, 'testsuite');
    expect(suites.map((s) => s.attrs.name)).toEqual([
      `task ${ids[0]} domain_check_availability`,
      `task ${ids[1]} domain_check_availability`,
    ]);
    expect(suites[0]!.attrs).toMatchObject({ tests: '2', failures: '0', errors: '0' });
    expect(suites[1]!.attrs.errors).toBe('1');
    const error = findAll(suites[1]!, 'error')[0]!;
    expect(error.attrs.message).toMatch(/taskfail-d\.com/);
    expect(doc.attrs.errors).toBe('1');

    expect(summaryRows(readFileSync(summary, 'utf8')).map((row) => row.split(' | ')[0])).toEqual(
      ids.map((id) => `| ${id}`),
    );
    expect(result.stderr).toMatch(
      new RegExp(`^::error title=taskctl%3A task ${ids[1]} failed \\(domain_check_availability\\)::`, 'm'),
    );
  });

  it('refuses a bad --report before creating anything (exit 2)', async () => {
    const before = await world.admin<{ tasks: unknown[] }>('GET', '/__sandbox/state');
    const result = await world.inProcess([
      'create',
      'domain_check_availability',
      'a.com',
      '--wait',
      '--report',
      'html=out.html',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--report.*unknown report "html=out\.html"/);
    expect((await world.admin<{ tasks: unknown[] }>('GET', '/__sandbox/state')).tasks).toHaveLength(
      before.tasks.length,
    );
  });

  it('warns when GITHUB_STEP_SUMMARY is not set, and still annotates', async () => {
    const created = await world.createTask('domain_check_availability', ['fail-a.com']);
    const result = await world.inProcess(['wait', String(created.id), '--report', 'github'], { clock });
    expect(result.code).toBe(11);
    expect(result.stderr).toMatch(/warning: --report github: GITHUB_STEP_SUMMARY is not set/);
    expect(result.stderr).toMatch(/^::error title=.*::fail-a\.com: /m);
    // Not in GitHub Actions: no log groups.
    expect(result.stderr).not.toContain('::group::');
  });
});

describe('show --report', () => {
  it('reports the whole task, whatever --items-status shows', async () => {
    const created = await world.inProcess(
      ['create', 'domain_check_availability', 'a.com', 'fail-b.com', 'c.com', '--wait', '-q'],
      { clock },
    );
    const id = created.stdout.trim();
    const junit = join(dir, 'show.xml');
    const result = await world.inProcess([
      'show',
      id,
      '--items-status',
      'failed',
      '-o',
      'tsv',
      '--report',
      `junit=${junit}`,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const doc = parseXml(readFileSync(junit, 'utf8'));
    expect(doc.attrs).toMatchObject({ tests: '3', failures: '1' });
  });
});

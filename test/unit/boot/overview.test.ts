/** A bare `taskctl` is a short overview; errors and hints are word-wrapped on a terminal, not in scripts. */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../commands/run-in-process.js';
import { textWidth } from '../../../src/output/width.js';

describe('bare taskctl', () => {
  it('prints a short overview (≤ 25 lines, within the width) on stdout, exit 0', async () => {
    const result = await runTaskctl([], { stdoutTTY: true, columns: 80 });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(25);
    for (const line of lines) expect(textWidth(line)).toBeLessThan(80);
    expect(result.stdout).toMatch(/^ {2}create +create a task$/m);
    expect(result.stdout).toMatch(/^ {2}wait +block until tasks finish$/m);
    expect(result.stdout).toContain('taskctl --sandbox create domain_check_availability a.com b.com --wait');
    expect(result.stdout).toContain('taskctl --help');
    expect(result.stderr).toBe('');
  });
});

describe('bare taskctl piped (no terminal, so no width)', () => {
  it('prints every description whole: nothing is cut with …, nothing wrapped', async () => {
    const result = await runTaskctl([], { stdoutTTY: false });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('…');
    expect(result.stdout).toMatch(/^ {2}webhook +receive webhook events on this machine, or send a test event$/m);
    expect(result.stdout).toMatch(/^All flags and exit codes: taskctl --help; one command: taskctl <command> --help$/m);
  });
});

describe('bare taskctl at 40 columns', () => {
  it('fits: descriptions end after a whole word, the commands to run wrap at spaces and are never cut', async () => {
    const result = await runTaskctl([], { stdoutTTY: true, columns: 40 });
    const lines = result.stdout.trimEnd().split('\n');
    for (const line of lines) expect(textWidth(line)).toBeLessThan(40);
    expect(lines.length).toBeLessThanOrEqual(32);
    expect(result.stdout).toMatch(/^ {2}list {8}list tasks, newest first…$/m);
    const joined = result.stdout.replace(/\n +/g, ' ');
    expect(joined).toContain('taskctl --sandbox create domain_check_availability a.com b.com --wait');
    expect(joined).toContain('taskctl auth login --base-url URL');
    expect(joined).toContain('taskctl <command> --help');
  });
});

const ENV = { TASKCTL_BASE_URL: 'https://api.test', NO_COLOR: '1' };

describe('errors on a terminal', () => {
  const longHint =
    'Run `taskctl auth login`, set TASKCTL_API_KEY, pass --api-key-file, or try the local sandbox with --sandbox.';

  it('are word-wrapped to the width when stderr is a terminal: no word broken, no line too wide', async () => {
    const result = await runTaskctl(['balance'], { stderrTTY: true, columns: 40, env: ENV });
    expect(result.code).toBe(4);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(textWidth(line)).toBeLessThan(40);
    expect(lines[0]).toBe('error: no API key configured');
    expect(lines.slice(1).join(' ')).toBe(longHint);
  });

  it('stay one line each for scripts (stderr not a terminal)', async () => {
    const result = await runTaskctl(['balance'], { columns: 40, env: ENV });
    expect(result.stderr).toBe(`error: no API key configured\n${longHint}\n`);
  });

  it.each([
    [['wait', '1', '--timeout', 'xyz'], '--timeout "xyz": expected a duration such as 500ms'],
    [['list', '--status', 'succeeded'], 'unknown status "succeeded": tasks are pending, processing'],
  ])("commander's own refusals and flag values refused while parsing wrap too: taskctl %j", async (argv, text) => {
    const result = await runTaskctl(argv, { stderrTTY: true, columns: 40, env: ENV });
    expect(result.code).toBe(2);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(textWidth(line)).toBeLessThan(40);
    expect(result.stderr.replace(/\n/g, ' ')).toContain(text);
    const script = await runTaskctl(argv, { columns: 40, env: ENV });
    expect(script.stderr.split('\n')[0]).toContain(text);
  });

  it('warnings wrap too, with their prefix counted', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/7', 200, {
      success: true,
      data: { id: 7, service: 'x', status: 'completed', total_items: 1, cost: 1, created_at: '2025-01-15T11:00:00Z' },
    });
    const result = await runTaskctl(['show', '7'], { api, stderrTTY: true, columns: 30, env: { NO_COLOR: '1' } });
    for (const line of result.stderr.trimEnd().split('\n')) expect(textWidth(line)).toBeLessThan(30);
    expect(result.stderr).toMatch(/^warning: the service sent no\nitem results for task 7\n$/);
  });
});

describe('bare taskctl at 80 columns', () => {
  it('shows every description whole: none is cut with …', async () => {
    const result = await runTaskctl([], { stdoutTTY: true, columns: 80 });
    expect(result.stdout).not.toContain('…');
  });
});

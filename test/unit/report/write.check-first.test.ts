/** `create --wait --report` and `show --report` check the report path before any request, in-process. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../commands/run-in-process.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'taskctl-report-check-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('a --report path that cannot be written is exit 2 before any request', () => {
  it.each([
    ['create', 'domain_check_availability', 'a.com', '--wait', '--yes'],
    ['show', '42'],
  ])('%s', async (...argv) => {
    const file = join(dir, 'domains.txt');
    writeFileSync(file, 'a.com\n');
    const api = mockApi();
    const result = await runTaskctl([...argv, '--report', `junit=${join(file, 'x.xml')}`], { api });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `cannot write the report to ${join(file, 'x.xml')}: ${file} is a file, not a directory`,
    );
    expect(api.calls).toEqual([]);
  });
});

describe('a --report path under /proc (writable to root by access()) is exit 2 at once, before any request', () => {
  it.each([
    ['create', 'domain_check_availability', 'a.com', '--wait', '--yes'],
    ['wait', '42'],
    ['show', '42'],
    ['retry', '42', '--wait', '--yes'],
  ])('%s', { timeout: 5_000 }, async (...argv) => {
    const api = mockApi();
    const result = await runTaskctl([...argv, '--report', 'junit=/proc/nope/x.xml'], { api });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^error: cannot write the report to \/proc\/nope\/x\.xml: \/proc\/nope cannot be made/,
    );
    expect(result.stderr).toContain('Choose another --report junit=FILE.');
    expect(api.calls).toEqual([]);
  });
});

describe('a --report path that is a FIFO is exit 2 before any request (writing it at the end would block)', () => {
  it.each([
    ['create', 'domain_check_availability', 'a.com', '--wait', '--yes'],
    ['wait', '42'],
  ])('%s', { timeout: 5_000 }, async (...argv) => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const api = mockApi();
    const result = await runTaskctl([...argv, '--report', `junit=${fifo}`], { api });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `cannot write the report to ${fifo}: it is a FIFO (named pipe), not a regular file`,
    );
    expect(api.calls).toEqual([]);
  });
});

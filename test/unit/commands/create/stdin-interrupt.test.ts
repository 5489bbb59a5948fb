/**
 * Ctrl-C or SIGTERM while `create` reads its items, or `wait -` its ids, from a stdin that never ends (a producer still
 * running): the read stops at once and the run ends as interrupted, not when the producer closes its end. A read that
 * ends in a failure leaves no descriptor of the job's copy of stdin (`FILE.input`) open behind it.
 */
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../run-in-process.js';

/**
 * A stdin that gives `lines` and then never ends, as a pipe from a producer still running (a Node stream, as
 * process.stdin is: destroying it ends a read waiting on it); `reading` resolves once its first lines were read.
 */
function endlessStdin(lines: string): { stream: PassThrough; reading: Promise<void> } {
  const stream = new PassThrough();
  stream.write(lines);
  const reading = new Promise<void>((resolve) => stream.once('data', () => setImmediate(resolve)));
  return { stream, reading };
}

describe('a signal while stdin is read', () => {
  it.each([
    ['create (a job)', ['create', 'domain_check_availability', '-y']],
    ['create --dry-run', ['create', 'domain_check_availability', '--dry-run']],
    ['wait -', ['wait', '-']],
  ])('%s: ends at once as interrupted, stdin stopped, nothing sent', { timeout: 20_000 }, async (_, argv) => {
    const { stream, reading } = endlessStdin(argv[0] === 'wait' ? '140\n' : 'a.example.com\n');
    const api = mockApi();
    const controller = new AbortController();
    void reading.then(() => {
      controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError', signal: 'SIGTERM' }));
    });
    const result = await runTaskctl(argv, { api, stdinStream: stream, signal: controller.signal });
    expect(result.code, result.stderr).toBe(143);
    expect(result.stderr).toMatch(/interrupted/);
    // wait never looked at task 140: no "still running" line for it.
    expect(result.stderr).not.toMatch(/still running|error: unexpected|cannot read/);
    expect(stream.destroyed).toBe(true);
    expect(api.calls).toEqual([]);
  });
});

/** The process's descriptors open on `path` (removed or not): never a count of all, which other files change. */
const openOn = (path: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target === path || target === `${path} (deleted)`;
    } catch {
      return false; // closed since it was listed
    }
  }).length;

describe.runIf(process.platform === 'linux')('a read of stdin that fails', () => {
  it('part-way (a NUL byte: exit 3): no descriptor of the copy of stdin, FILE.input, is left open', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taskctl-stdin-copy-'));
    try {
      const journal = join(dir, 'job.jsonl');
      const result = await runTaskctl(['create', 'domain_check_availability', '--journal', journal, '-y'], {
        api: mockApi(),
        stdin: 'a.example.com\nb.example\u0000com\n',
      });
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toMatch(/NUL/);
      expect(openOn(`${journal}.input`)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

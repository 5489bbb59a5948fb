/**
 * A wait stopped before its first answer (Ctrl-C, SIGTERM, a --timeout) has read nothing: it prints nothing that looks
 * like an answer (no `No results.` at a terminal, no `[]` for a script), only the stop's own words and exit code.
 * The stop comes while the first read is in flight: the mocked answer aborts the run's signal as it is asked for.
 */
import { describe, expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { writeJournal } from '../../core/job/fixture.js';
import { FakeClock, mockApi, runTaskctl, type MockApi } from '../run-in-process.js';

/** A read of task `id` that stops the run (as main's handler for `signal` does) when it is asked for. */
function stoppedAtFirstRead(id: number, signal: 'SIGINT' | 'SIGTERM'): { api: MockApi; controller: AbortController } {
  const api = mockApi();
  const controller = new AbortController();
  api.reply('GET', `/tasks/${id}`, 200, () => {
    controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError', signal }));
    return { success: true, data: task(id, { status: 'processing', completed_at: null }) };
  });
  return { api, controller };
}

/** What stays on a terminal's stderr: the text after the live line's last erase (the line drawn while reading). */
function left(stderr: string): string {
  return stderr.slice(stderr.lastIndexOf('\x1b[2K') + 1).replace(/^\[2K/, '');
}

describe('wait stopped before its first answer', () => {
  it('Ctrl-C at a terminal: exit 130, the command that goes on, no "No results.", no "still running" of a task never read', async () => {
    const { api, controller } = stoppedAtFirstRead(8, 'SIGINT');
    const result = await runTaskctl(['wait', '8'], {
      api,
      signal: controller.signal,
      stdoutTTY: true,
      stderrTTY: true,
    });
    expect(result.code).toBe(130);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toMatch(/No results|error/);
    expect(left(result.stderr)).toBe('interrupted before the first answer: taskctl wait 8\n');
  });

  it('SIGTERM with -o json: exit 143 and an empty stdout, not the `[]` of a wait with no tasks', async () => {
    const { api, controller } = stoppedAtFirstRead(8, 'SIGTERM');
    const result = await runTaskctl(['wait', '8', '-o', 'json'], { api, signal: controller.signal });
    expect(result.code).toBe(143);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('interrupted before the first answer: taskctl wait 8\n');
  });

  it('wait --job: the same, at a terminal and for a script', async () => {
    const journal = writeJournal({ items: 2, chunkSize: 2, tasks: [8] });
    for (const [format, tty] of [
      ['table', true],
      ['json', false],
      ['ndjson', false],
    ] as const) {
      const { api, controller } = stoppedAtFirstRead(8, 'SIGINT');
      const result = await runTaskctl(['wait', '--job', journal, '-o', format], {
        api,
        signal: controller.signal,
        stdoutTTY: tty,
        stderrTTY: tty,
      });
      expect(result.code, format).toBe(130);
      expect(result.stdout, format).toBe('');
      expect(result.stderr, format).not.toMatch(/No results|error/);
      // At a terminal the hint may wrap the journal's long path onto a line of its own.
      expect(left(result.stderr), format).toMatch(/^interrupted before the first answer:\s+taskctl wait --job \S+\n$/);
    }
  });

  it('a --timeout that ends before the first read: exit 124 and its error, no empty list before it', async () => {
    for (const [format, tty] of [
      ['table', true],
      ['json', false],
    ] as const) {
      const api = mockApi();
      api.allowUnused(); // never read: the deadline comes first
      api.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { status: 'processing', completed_at: null }) });
      const result = await runTaskctl(['wait', '1', '--timeout', '10ms', '-o', format], {
        api,
        // The wait's own start outlasts a 10 ms --timeout.
        clock: new FakeClock({ readMs: 5 }),
        stdoutTTY: tty,
        stderrTTY: tty,
      });
      expect(result.code, format).toBe(124);
      expect(result.stdout, format).toBe('');
      expect(result.stderr, format).not.toMatch(/No results/);
      expect(result.stderr, format).toMatch(/timed out after 10ms before the wait sent its first read of the task/);
    }
  });
});

/**
 * `resume` alone, stopped by a signal while it looks for the interrupted job: the signal's exit code (130, 143) like
 * every command stopped, never 0, and never "no interrupted job" (the person stopped it; it did not conclude).
 */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../run-in-process.js';

/** A signal already given when the look runs, as `main` records Ctrl-C (SIGINT) or `kill` (SIGTERM). */
function stopped(signal: 'SIGINT' | 'SIGTERM'): AbortSignal {
  const controller = new AbortController();
  controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError', signal }));
  return controller.signal;
}

describe('resume alone, stopped while it looks for the job', () => {
  it('without a signal: none is said, exit 0', async () => {
    const result = await runTaskctl(['resume'], { api: mockApi() });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('no interrupted job to resume');
  });

  it.each([
    [['--adopt', '1=2'], '--adopt 1=2'],
    [['--resend', '3'], '--resend 3'],
  ])(
    '%j with no interrupted job: exit 2 saying the flag needs a job, never 0 with the flag dropped',
    async (flags, flag) => {
      const api = mockApi();
      const result = await runTaskctl(['resume', ...flags], { api });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `error: ${flag} needs a job: there is no interrupted job to resume\n` +
          `Name the job it is for: taskctl resume ID ${flag} (\`taskctl jobs\` lists them).\n`,
      );
      expect(api.calls).toEqual([]);
    },
  );

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s: exit %i, interrupted and nothing sent, not "no interrupted job"', async (signal, code) => {
    const result = await runTaskctl(['resume'], { api: mockApi(), signal: stopped(signal) });
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toMatch(/no interrupted job/);
    expect(result.stderr).toMatch(/^error: interrupted before anything was sent: no job was resumed\n/);
    expect(result.stderr).toContain('taskctl jobs');
  });
});

/** Ctrl-C ends `watch` and `wait` quietly: exit 130, how to go on, never "error:", with or without ids. */
import { describe, expect, it } from 'vitest';
import { mockApi, replyNoTasks, runTaskctl, sandboxRun } from '../harness.js';

/** A signal already aborted as main's SIGINT handler aborts it. */
function ctrlC(): AbortSignal {
  const controller = new AbortController();
  controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError' }));
  return controller.signal;
}

describe('Ctrl-C in watch and wait', () => {
  it('watch with ids: exit 130, the command that goes on, no error', async () => {
    const { run } = await sandboxRun(500);
    const id = Number((await run(['create', 'domain_check_availability', 'a.com', 'b.com', '-q'])).stdout);
    const result = await run(['watch', String(id)], { signal: ctrlC() });
    expect(result.code).toBe(130);
    expect(result.stderr).not.toMatch(/error/);
    expect(result.stderr.trim().split('\n').at(-1)).toBe(`still running: taskctl watch ${id}`);
  });

  it('watch without ids: exit 130, no error', async () => {
    const { run } = await sandboxRun(500);
    await run(['create', 'domain_check_availability', 'a.com', '-q']);
    const result = await run(['watch'], { signal: ctrlC() });
    expect(result.code).toBe(130);
    expect(result.stderr).not.toMatch(/error/);
  });

  it('wait: exit 130, the command that goes on, no error', async () => {
    const { run } = await sandboxRun(500);
    const id = Number((await run(['create', 'domain_check_availability', 'a.com', 'b.com', '-q'])).stdout);
    const result = await run(['wait', String(id)], { signal: ctrlC() });
    expect(result.code).toBe(130);
    expect(result.stderr).not.toMatch(/error/);
    expect(result.stderr.trim().split('\n').at(-1)).toBe(`still running: taskctl wait ${id}`);
  });

  it('an interrupt that ends a command elsewhere is said without "error:"', async () => {
    const api = mockApi();
    replyNoTasks(api);
    api.allowUnused();
    const result = await runTaskctl(['list'], { api, signal: ctrlC() });
    expect(result.code).toBe(130);
    expect(result.stderr).toBe('interrupted\n');
  });
});

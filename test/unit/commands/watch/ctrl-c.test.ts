/** Ctrl-C ends `watch` and `wait` quietly: exit 130, how to go on, never "error:", with or without ids. */
import { describe, expect, it } from 'vitest';
import { ctrlCWhen } from '../../../clock.js';
import { task } from '../../../hardening/scripted-server.js';
import { mockApi, replyNoTasks, runTaskctl, sandboxRun } from '../run-in-process.js';

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

  it.each([
    [['watch'], 'still running: taskctl watch'],
    [['watch', '--follow'], 'still running: taskctl watch --follow'],
  ])('%j with a task unfinished at Ctrl-C: the command that goes on, as with ids', async (argv, hint) => {
    const { run, clock } = await sandboxRun(60_000);
    await run(['create', 'domain_check_availability', 'a.com', '-q']);
    const controller = new AbortController();
    // The first pause between two reads: the list was read.
    const stopping = ctrlCWhen(clock, controller, (ms) => ms >= 1000);
    const result = await run(argv, { clock: stopping, signal: controller.signal });
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).not.toMatch(/error/);
    expect(result.stderr.trim().split('\n').at(-1)).toBe(hint);
  });

  it('watch --follow with nothing unfinished at Ctrl-C: nothing is still running, so no next step', async () => {
    const { run, clock } = await sandboxRun(60_000);
    const controller = new AbortController();
    const stopping = ctrlCWhen(clock, controller, (ms) => ms >= 1000);
    const result = await run(['watch', '--follow'], { clock: stopping, signal: controller.signal });
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).not.toMatch(/still running|error/);
  });

  it('wait: exit 130, the command that goes on, no error (stopped before its first answer: no "still running")', async () => {
    const { run } = await sandboxRun(500);
    const id = Number((await run(['create', 'domain_check_availability', 'a.com', 'b.com', '-q'])).stdout);
    const result = await run(['wait', String(id)], { signal: ctrlC() });
    expect(result.code).toBe(130);
    expect(result.stderr).not.toMatch(/error/);
    expect(result.stderr.trim().split('\n').at(-1)).toBe(`interrupted before the first answer: taskctl wait ${id}`);
  });

  it('watch stopped during its first read prints nothing that looks like an answer (as wait: no `[]`, no table)', async () => {
    for (const argv of [
      ['watch', '8', '-o', 'json'],
      ['watch', '8'],
      ['watch', '-o', 'ndjson'],
    ]) {
      const api = mockApi();
      const controller = new AbortController();
      const stop = () => controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError' }));
      const path = argv[1] === '8' ? '/tasks/8' : /^\/tasks\?/;
      api.reply('GET', path, 200, () => {
        stop();
        return { success: true, data: task(8, { status: 'processing', completed_at: null }) };
      });
      const result = await runTaskctl(argv, { api, signal: controller.signal, stdoutTTY: argv.length === 2 });
      expect(result.code, argv.join(' ')).toBe(130);
      expect(result.stdout, argv.join(' ')).toBe('');
      expect(result.stderr, argv.join(' ')).not.toMatch(/No results|error/);
    }
  });

  it('an interrupt that ends a read elsewhere (list) is an error saying nothing changed, and the same command again', async () => {
    const api = mockApi();
    replyNoTasks(api);
    api.allowUnused();
    const result = await runTaskctl(['list'], { api, signal: ctrlC() });
    expect(result.code).toBe(130);
    expect(result.stderr).toBe('error: interrupted\nNothing was changed; run the same command again.\n');
  });
});

/**
 * Ctrl-C (or SIGTERM) during a read in flight, for the commands that only read the account: said as every read's stop
 * is, an error with the way on (docs/behaviour.md#exit-codes), never a bare `interrupted` that leaves a person to wonder
 * whether something was changed.
 */
import { describe, expect, it } from 'vitest';
import { Gate } from './commands/gate.js';
import { API_KEY, BASE_URL, mockApi, runTaskctl } from './commands/run-in-process.js';

/** Runs `taskctl argv`, its one request to `path` held in flight and then stopped by `signal`. */
async function stoppedInFlight(argv: string[], path: string, signal: 'SIGINT' | 'SIGTERM') {
  const api = mockApi();
  api.reply('GET', path, 200, { success: true, data: {} });
  api.allowUnused(); // the request is cut before the mock answers it
  const gate = new Gate(api.agent);
  const controller = new AbortController();
  gate.events.once('held', () => {
    controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError', signal }));
    gate.held[0]?.release();
  });
  const env = { TASKCTL_BASE_URL: BASE_URL, TASKCTL_API_KEY: API_KEY };
  return runTaskctl(argv, { dispatcher: gate, env, signal: controller.signal });
}

describe('a read stopped in flight says nothing was changed, and how to go on', () => {
  it.each([
    [['balance'], '/balance'],
    [['services'], '/services'],
    [['api', '/balance'], '/balance'],
    [['api', 'GET', '/tasks/7'], '/tasks/7'],
  ])('taskctl %j', async (argv, path) => {
    const result = await stoppedInFlight(argv, path, 'SIGINT');
    expect(result.code).toBe(130);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('error: interrupted\nNothing was changed; run the same command again.\n');
  });

  it('SIGTERM: the same words, its own exit code', async () => {
    const result = await stoppedInFlight(['balance', '-o', 'json'], '/balance', 'SIGTERM');
    expect(result.code).toBe(143);
    expect(result.stderr).toBe('error: interrupted\nNothing was changed; run the same command again.\n');
  });
});

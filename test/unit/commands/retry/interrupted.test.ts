/**
 * Ctrl-C (or SIGTERM) while retry reads the tasks it retries: nothing was priced or sent, and it says so as every read's
 * stop does (docs/behaviour.md#exit-codes), never a bare `interrupted`.
 */
import { expect, it } from 'vitest';
import { stoppedInFlight } from '../stopped-in-flight.js';

it.each([
  [['retry', '1'], 'SIGINT', 130],
  [['retry', '1', '--dry-run'], 'SIGTERM', 143],
] as const)('taskctl %j stopped by %s reading task 1', async (argv, signal, code) => {
  const result = await stoppedInFlight([...argv], { method: 'GET', path: '/tasks/1', status: 200 }, signal);
  expect(result.code).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr).toBe('error: interrupted\nNothing was changed; run the same command again.\n');
});

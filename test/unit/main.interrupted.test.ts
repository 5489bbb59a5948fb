/**
 * Ctrl-C (or SIGTERM) during a read in flight, for the commands that only read the account: said as every read's stop
 * is, an error with the way on (docs/behaviour.md#exit-codes), never a bare `interrupted` that leaves a person to wonder
 * whether something was changed.
 */
import { describe, expect, it } from 'vitest';
import { stoppedInFlight } from './commands/stopped-in-flight.js';

/** `taskctl argv`, its one GET of `path` stopped in flight by `signal`. */
const stoppedRead = (argv: string[], path: string, signal: 'SIGINT' | 'SIGTERM') =>
  stoppedInFlight(argv, { method: 'GET', path, status: 200 }, signal);

describe('a read stopped in flight says nothing was changed, and how to go on', () => {
  it.each([
    [['balance'], '/balance'],
    [['services'], '/services'],
    [['api', '/balance'], '/balance'],
    [['api', 'GET', '/tasks/7'], '/tasks/7'],
  ])('taskctl %j', async (argv, path) => {
    const result = await stoppedRead(argv, path, 'SIGINT');
    expect(result.code).toBe(130);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('error: interrupted\nNothing was changed; run the same command again.\n');
  });

  it('SIGTERM: the same words, its own exit code', async () => {
    const result = await stoppedRead(['balance', '-o', 'json'], '/balance', 'SIGTERM');
    expect(result.code).toBe(143);
    expect(result.stderr).toBe('error: interrupted\nNothing was changed; run the same command again.\n');
  });
});

/** Every error names the next step; a usage error without advice of its own points at the command's help. */
import { describe, expect, it } from 'vitest';
import { runTaskctl } from './commands/harness.js';

describe('usage errors name the next step', () => {
  it.each([
    [['create'], /missing required argument 'service'\nRun `taskctl create --help` for usage and examples\./],
    [['create', 'x', '--chunk-size', '0', 'a.com'], /is invalid\. .*\nRun `taskctl create --help` for usage/],
    [['config', 'set'], /missing required argument 'key'\nRun `taskctl config set --help` for usage/],
    [['frob'], /unknown command 'frob'\nRun `taskctl --help` for usage and examples\./],
    [['wait', '1', '2', '-'], /not both\nRun `taskctl wait --help` for usage and examples\./],
  ])('taskctl %j', async (argv, expected) => {
    const result = await runTaskctl(argv, { stdin: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(expected);
  });

  it('an error with advice of its own keeps it (no second hint)', async () => {
    const result = await runTaskctl(['balance'], { env: { TASKCTL_BASE_URL: undefined } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no API base URL configured\nRun `taskctl auth login --base-url URL`/);
    expect(result.stderr).not.toMatch(/for usage and examples/);
  });
});

/**
 * `taskctl wait -` reads task ids from stdin. A pipe that ends with no ids is nothing to wait for (exit 0), so the
 * documented pipelines hold on a quiet day: `taskctl retry 42 -q | taskctl wait -` when nothing needed a retry, and
 * `taskctl list --status processing -q | taskctl wait -` when nothing is processing (docs/commands.md#taskctl-wait-id-).
 */
import { describe, expect, it } from 'vitest';
import { sandboxRun } from '../harness.js';

describe('wait - with ids on stdin', () => {
  it('a pipe that ends with no ids: nothing to wait for, exit 0, one line on stderr, an empty array for -o json', async () => {
    const { run } = await sandboxRun(0);
    const empty = await run(['wait', '-'], { stdin: '' });
    expect(empty).toMatchObject({ code: 0, stdout: '' });
    expect(empty.stderr).toBe('nothing to wait for: no task ids on stdin\n');
    const json = await run(['wait', '-', '-o', 'json'], { stdin: '# no tasks\n\n' });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([]);
    // In GitHub Actions no empty log group is opened.
    const actions = await run(['wait', '-'], { stdin: '', env: { GITHUB_ACTIONS: 'true' } });
    expect(actions.stderr).toBe('nothing to wait for: no task ids on stdin\n');
    const quiet = await run(['wait', '-', '-q'], { stdin: '' });
    expect(quiet).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('at a terminal too: the one line, no live block reading 0 tasks, no "No results." after it', async () => {
    const { run } = await sandboxRun(0);
    const result = await run(['wait', '-'], { stdin: '', stdoutTTY: true, stderrTTY: true, columns: 80 });
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(result.stderr).toBe('nothing to wait for: no task ids on stdin\n');
  });

  it('a terminal on stdin is still a usage error (exit 2): nothing was piped', async () => {
    const { run } = await sandboxRun(0);
    const result = await run(['wait', '-'], { stdin: '', stdinTTY: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/stdin is a terminal/);
  });
});

/**
 * `taskctl wait -` reads task ids from stdin. A pipe that ends with no ids is nothing to wait for (exit 0), so the
 * documented pipelines hold on a quiet day: `taskctl retry 42 -q | taskctl wait -` when nothing needed a retry, and
 * `taskctl list --status processing -q | taskctl wait -` when nothing is processing (docs/commands.md#taskctl-wait-id-).
 */
import { describe, expect, it } from 'vitest';
import { producer } from '../../core/items/item-sources.js';
import { mockApi, runTaskctl, sandboxRun } from '../run-in-process.js';

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

describe('wait - with several ids on a line', () => {
  it('`echo $ids | taskctl wait -` waits for every id of the line, never only the first: a failed second is exit 11', async () => {
    const { run } = await sandboxRun(0);
    expect((await run(['create', 'domain_check_availability', 'ok1.com', '-q', '--wait'])).code).toBe(0);
    expect((await run(['create', 'domain_check_availability', 'fail-x1.com', '-q', '--wait'])).code).toBe(11);
    for (const stdin of ['1 2\n', '1  2', '# ids\n1 2 # both\n']) {
      const result = await run(['wait', '-', '-o', 'tsv'], { stdin });
      expect(result.code, JSON.stringify(stdin)).toBe(11);
      expect(result.stdout.split('\n').map((row) => row.split('\t')[0])).toEqual(['1', '2', '']);
    }
    // A tsv row is its first field; a line of words that are no ids is refused, never read as its first word.
    expect((await run(['wait', '-', '-o', 'tsv'], { stdin: '2\tdomain_check_availability\tfailed\n' })).code).toBe(11);
    const words = await run(['wait', '-'], { stdin: '1 domain_check_availability completed\n' });
    expect(words.code).toBe(2);
    expect(words.stderr).toMatch(/^error: invalid task id "domain_check_availability"/);
  });
});

describe('wait - with more ids than one wait follows', () => {
  it('past 100,000 distinct ids: exit 2 before any request, saying how to wait for them in parts; memory stays bounded', async () => {
    const api = mockApi(); // no reply: a request would fail the test
    const ids = Array.from({ length: 100_001 }, (_, i) => String(i + 1)).join('\n');
    const result = await runTaskctl(['wait', '-'], { api, stdin: `${ids}\n` });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: more than 100,000 task ids on stdin; one wait follows at most 100,000/);
    expect(result.stderr).toContain('split -l 100000');
    // 100,000 distinct ids, each given twice, are within the bound: asked for (here: not found, exit 5).
    const { run } = await sandboxRun(0);
    const within = ids.slice(0, ids.lastIndexOf('\n'));
    const repeated = await run(['wait', '-'], { stdin: `${within}\n${within}\n` });
    expect(repeated.code, repeated.stderr).toBe(5);
    expect(repeated.stderr).toMatch(/^error: task \d+ was not found/);
  });
});

describe('wait - with the key on stdin too', () => {
  it('refused before reading (exit 2), as create refuses: the key line is never read as an id, nor printed', async () => {
    const { run } = await sandboxRun(0);
    const result = await run(['--api-key-file', '-', 'wait', '-'], { stdin: 'sk_pasted_secret_1234\n7\n' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: stdin cannot carry both the API key \(--api-key-file -\) and the task ids/);
    expect(result.stderr).not.toContain('sk_pasted');
  });
});

describe('wait - with a stdin that has no line breaks', () => {
  it('refused (exit 2) once the unfinished line passes 64 Ki characters, the producer stopped, nothing read', async () => {
    const endless = producer(() => Buffer.alloc(16 * 1024)); // NUL bytes, as from /dev/zero
    const api = mockApi();
    const result = await runTaskctl(['wait', '-'], { api, stdinStream: endless.stream });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: stdin has a line longer than 64 Ki characters, which holds no task id; stopped reading\n' +
        'Pipe task ids in, one per line: `taskctl list --status processing -q | taskctl wait -`.\n',
    );
    expect(endless.pulls()).toBe(5); // 4 chunks make 64 Ki, the fifth passes it
    expect(endless.stopped()).toBe(true);
    expect(api.calls).toEqual([]);
  });

  it('an id split across chunks is read whole; comments and tsv columns skipped as before', async () => {
    const chunks = ['# ids\n1', '2\tdomain_check\r\n'].map((text) => Buffer.from(text));
    const api = mockApi();
    api.reply('GET', '/tasks/12', 404, { success: false, error: { code: 'not_found', message: 'gone' } });
    const result = await runTaskctl(['wait', '-', '-o', 'tsv'], {
      api,
      stdinStream: producer((pull) => chunks[pull]).stream,
    });
    // The first id read is 12, not 1: the first one asked for is named, and it is not found.
    expect(result).toMatchObject({
      code: 5,
      stderr: 'error: task 12 was not found (gone)\nCheck the id with `taskctl list`.\n',
    });
  });
});

describe('wait - stopped by Ctrl-C while it reads stdin', () => {
  /** A stdin that gives `text`, then, asked for more, stops the run (as main's handler for SIGINT does). */
  function thenCtrlC(text: string) {
    const controller = new AbortController();
    const stdin = producer((pull) => {
      if (pull === 0) return Buffer.from(text);
      controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError' }));
      return Buffer.from('');
    });
    return { controller, stdin: stdin.stream };
  }

  it('names the ids it read, as a wait stopped before its first answer (exit 130, nothing asked)', async () => {
    const { controller, stdin } = thenCtrlC('236\n237\n');
    const api = mockApi();
    const result = await runTaskctl(['wait', '-', '--any'], { api, stdinStream: stdin, signal: controller.signal });
    expect(result.code).toBe(130);
    expect(result.stderr).toBe('interrupted before the first answer: taskctl wait 236 237 --any\n');
    expect(api.calls).toEqual([]);
  });

  it('many scattered ids: a file of them, not a line of ids; none: nothing was changed', async () => {
    const scattered = Array.from({ length: 30 }, (_, i) => 2 * i + 1);
    const many = thenCtrlC(scattered.map((id) => `${id}\n`).join(''));
    const result = await runTaskctl(['wait', '-'], {
      api: mockApi(),
      stdinStream: many.stdin,
      signal: many.controller.signal,
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/^interrupted before the first answer: taskctl wait - < \S+\n$/);

    const none = thenCtrlC('# no ids yet\n');
    const empty = await runTaskctl(['wait', '-'], {
      api: mockApi(),
      stdinStream: none.stdin,
      signal: none.controller.signal,
    });
    expect(empty.code).toBe(130);
    expect(empty.stderr).toBe('error: interrupted\nNothing was changed; run the same command again.\n');
  });
});

/**
 * Server text never starts a line of its own on stderr: a newline in an error message, a task's error_message or a
 * service name cannot forge an "error:" line or a GitHub Actions workflow command (`::add-mask::`, `::error::`).
 */
import { expect, it } from 'vitest';
import { task } from '../../hardening/scripted-server.js';
import { mockApi, runTaskctl } from '../commands/run-in-process.js';

const INJECTED = 'bad\n::add-mask::x\r\nerror: forged\u2028::warning::sep';

/** The lines a CI runner would read: none may begin with `::` or a second `error:` of the server's making. */
function expectNoInjectedLine(stderr: string) {
  const lines = stderr.split(/\r?\n|\u2028|\u2029/);
  expect(lines.filter((line) => line.startsWith('::'))).toEqual([]);
  expect(lines.filter((line) => line.startsWith('error: forged'))).toEqual([]);
  expect(stderr).toContain('\\n::add-mask::x'); // still there for the reader, as a visible escape
}

it("a failed task's error_message is one line in wait's error", async () => {
  const api = mockApi();
  api.reply('GET', '/tasks/1', 200, {
    success: true,
    data: task(1, { status: 'failed', completed_at: null, error_message: INJECTED }),
  });
  const result = await runTaskctl(['wait', '1', '-q'], { api });
  expect(result.code).toBe(10);
  expectNoInjectedLine(result.stderr);
});

it("an error response's message is one line", async () => {
  const api = mockApi();
  api.reply('GET', '/balance', 422, { success: false, error: { code: 'validation_error', message: INJECTED } });
  const result = await runTaskctl(['balance'], { api });
  expect(result.code).toBe(3);
  expectNoInjectedLine(result.stderr);
});

it("retry's unknown service is named on one line", async () => {
  const api = mockApi();
  const items = [{ target: 'a.com', status: 'failed', error: 'x' }];
  api.reply('GET', '/tasks/1', 200, {
    success: true,
    data: task(1, { service: INJECTED, status: 'completed', total_items: 1, items }),
  });
  api.reply('GET', '/services', 200, { success: true, data: [], meta: { total: 0, currency: 'coins' } });
  const result = await runTaskctl(['retry', '1', '--dry-run'], { api });
  expect(result.code).toBe(5);
  expectNoInjectedLine(result.stderr);
});

/** `taskctl api` paths: relative to the base URL; absolute URLs and `..` escapes never leave it. */
import { describe, expect, it } from 'vitest';
import { apiRequestPath } from '../../../src/api/request-path.js';
import { ExitCode, UsageError } from '../../../src/errors.js';

function refusal(path: string): UsageError {
  try {
    apiRequestPath(path);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`expected ${path} to be refused`);
}

describe('apiRequestPath', () => {
  it('keeps a relative path and gives a bare one its leading slash', () => {
    expect(apiRequestPath('/balance')).toBe('/balance');
    expect(apiRequestPath('balance')).toBe('/balance');
    expect(apiRequestPath('tasks/42')).toBe('/tasks/42');
    expect(apiRequestPath('/tasks?page=2&per_page=5')).toBe('/tasks?page=2&per_page=5');
  });

  it('percent-encodes spaces, controls and non-ASCII instead of sending them raw', () => {
    expect(apiRequestPath('/tasks/a b')).toBe('/tasks/a%20b');
    expect(apiRequestPath('/x?q=é')).toBe('/x?q=%C3%A9');
    expect(apiRequestPath('/x\r\nX-Evil: 1')).toBe('/x%0D%0AX-Evil:%201');
  });

  it.each([
    'https://evil.example/api/v1/balance',
    'http://127.0.0.1:9/x',
    'HTTPS://EVIL.EXAMPLE',
    '//evil.example/balance',
    '\\\\evil.example\\balance',
    'javascript:alert(1)',
  ])('refuses the absolute or host-relative URL %s (exit 2)', (path) => {
    const error = refusal(path);
    expect(error.exitCode).toBe(ExitCode.usage);
    expect(error.message).toMatch(/relative to the base URL/);
  });

  it.each([
    '/../__sandbox/state',
    '../balance',
    '/tasks/../../admin',
    '/tasks/%2e%2e/%2E%2E/admin',
    '/tasks/..%2f..%2fadmin',
    '/tasks/..\\admin',
    '/./balance',
    '/tasks/..',
  ])('refuses the escape %s (exit 2)', (path) => {
    const error = refusal(path);
    expect(error.exitCode).toBe(ExitCode.usage);
    expect(error.message).toMatch(/"\.\."|"\."/);
  });

  it('allows dots inside a segment and in the query', () => {
    expect(apiRequestPath('/files/a..b.json?next=../x')).toBe('/files/a..b.json?next=../x');
  });

  it('refuses an empty path, a fragment and broken percent-encoding', () => {
    expect(refusal('').message).toMatch(/path/);
    expect(refusal('/balance#x').message).toMatch(/#/);
    expect(refusal('/tasks/%zz').message).toMatch(/percent/);
  });
});

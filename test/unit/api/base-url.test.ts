import { describe, expect, it } from 'vitest';
import { isLoopbackHost, normaliseBaseUrl } from '../../../src/api/base-url.js';
import { ExitCode, UsageError } from '../../../src/errors.js';

function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(ExitCode.usage);
    return error as UsageError;
  }
  throw new Error('expected a UsageError');
}

describe('normaliseBaseUrl', () => {
  it.each([
    ['https://api.example.com', 'https://api.example.com/api/v1'],
    ['https://api.example.com/', 'https://api.example.com/api/v1'],
    ['  https://api.example.com/api/v1/  ', 'https://api.example.com/api/v1'],
    ['https://api.example.com/custom/prefix//', 'https://api.example.com/custom/prefix'],
    ['https://API.Example.com:443/api/v1', 'https://api.example.com/api/v1'],
    ['https://api.example.com:8443', 'https://api.example.com:8443/api/v1'],
    ['http://localhost:8787', 'http://localhost:8787/api/v1'],
    ['http://127.0.0.1:8787/api/v1', 'http://127.0.0.1:8787/api/v1'],
    ['http://127.1.2.3/', 'http://127.1.2.3/api/v1'],
    ['http://[::1]:8787', 'http://[::1]:8787/api/v1'],
  ])('%s → %s', (input, expected) => {
    expect(normaliseBaseUrl(input)).toBe(expected);
  });

  it.each([
    'http://api.example.com',
    'http://10.0.0.1:8787',
    'http://128.0.0.1',
    'http://localhost.evil.com',
    'http://127.0.0.1.nip.io',
  ])('refuses plain HTTP to a non-loopback host: %s', (input) => {
    const error = usageError(() => normaliseBaseUrl(input));
    expect(error.message).toMatch(/clear text/);
    expect(error.hint).toMatch(/https:\/\//);
  });

  it.each(['ftp://api.example.com', 'file:///etc/passwd', 'ws://localhost'])('refuses other schemes: %s', (input) => {
    expect(usageError(() => normaliseBaseUrl(input)).message).toMatch(/scheme/);
  });

  it('suggests a scheme for host:port', () => {
    expect(usageError(() => normaliseBaseUrl('localhost:8787')).hint).toMatch(/https:\/\/localhost:8787/);
  });

  it.each(['https://api.example.com/api/v1?x=1', 'https://api.example.com/#frag', 'https://api.example.com/?'])(
    'refuses a query or fragment: %s',
    (input) => {
      expect(usageError(() => normaliseBaseUrl(input)).message).toMatch(/query or fragment/);
    },
  );

  it('refuses credentials in the URL', () => {
    expect(usageError(() => normaliseBaseUrl('https://user:pw@api.example.com')).message).toMatch(
      /user name or password/,
    );
  });

  it.each(['', '   ', 'not a url', 'https://'])('refuses garbage: %j', (input) => {
    usageError(() => normaliseBaseUrl(input));
  });
});

describe('isLoopbackHost', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    'localhost.',
    '127.0.0.1',
    '127.255.255.254',
    '::1',
    '[::1]',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
  ])('%s is loopback', (host) => expect(isLoopbackHost(host)).toBe(true));
  it.each([
    'example.com',
    'foo.localhost',
    '128.0.0.1',
    '127.0.0',
    '127.0.0.256',
    '0.0.0.0',
    '::2',
    '[::]',
    '::ffff:10.0.0.1',
    '10.127.0.1',
  ])('%s is not loopback', (host) => expect(isLoopbackHost(host)).toBe(false));
});

describe('one loopback rule for the client and the sandbox', () => {
  it('the sandbox uses the same function, so *.localhost is refused as a webhook target too', async () => {
    const sandbox = await import('../../../src/sandbox/loopback.js');
    expect(sandbox.isLoopbackHost).toBe(isLoopbackHost);
    expect(sandbox.checkWebhookUrl('http://hooks.localhost:9000/x')).toMatch(/is not on this machine/);
    expect(sandbox.checkWebhookUrl('http://127.0.0.1:9000/x')).toBeUndefined();
  });
});

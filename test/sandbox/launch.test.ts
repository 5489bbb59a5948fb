import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CliError, ExitCode, UsageError } from '../../src/errors.js';
import { adoptCliError, launchSandbox } from '../../src/sandbox/launch.js';

/** What the sandbox bundle's own copy of UsageError looks like from the CLI bundle: same shape, another class. */
class ForeignUsageError extends Error {
  readonly exitCode = 2;
  readonly hint = 'Choose another --port.';
}

describe('errors across the sandbox bundle seam', () => {
  it('adopts an error of another bundle by its exit code, keeping message and hint', () => {
    const adopted = adoptCliError(new ForeignUsageError('port 8787 on 127.0.0.1 is already in use'));
    expect(adopted).toBeInstanceOf(CliError);
    expect(adopted).toMatchObject({ exitCode: 2, message: 'port 8787 on 127.0.0.1 is already in use' });
    expect((adopted as CliError).hint).toBe('Choose another --port.');
  });

  it('leaves our own errors and plain bugs alone', () => {
    const ours = new UsageError('x');
    expect(adoptCliError(ours)).toBe(ours);
    const bug = new TypeError('undefined is not a function');
    expect(adoptCliError(bug)).toBe(bug);
    expect(adoptCliError(Object.assign(new Error('odd'), { exitCode: 'two' }))).not.toBeInstanceOf(CliError);
    expect(adoptCliError('text')).toBe('text');
  });

  it('launchSandbox turns a port in use into a usage error', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const port = (busy.address() as AddressInfo).port;
      await expect(launchSandbox({ port })).rejects.toMatchObject({ exitCode: ExitCode.usage });
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});

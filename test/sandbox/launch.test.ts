import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CliError, ExitCode, UsageError } from '../../src/errors.js';
import { launchSandbox } from '../../src/sandbox/launch.js';

const BRAND: unique symbol = Symbol.for('taskctl.CliError');

/** What the sandbox bundle's own copy of UsageError looks like from the CLI bundle: another class, the same brand. */
class ForeignUsageError extends Error {
  readonly [BRAND] = true;
  readonly exitCode = 2;
  readonly hint = 'Choose another --port.';
}

describe('errors across the sandbox bundle seam', () => {
  it('a CliError of another bundle is a CliError here (the shared brand), with its exit code and hint', () => {
    const foreign = new ForeignUsageError('port 8787 on 127.0.0.1 is already in use');
    expect(foreign).toBeInstanceOf(CliError);
    expect(foreign).not.toBeInstanceOf(UsageError);
    expect(foreign).toMatchObject({ exitCode: 2, hint: 'Choose another --port.' });
  });

  it('plain errors and look-alikes without the brand are not CliErrors (they stay "a bug in taskctl")', () => {
    expect(new TypeError('undefined is not a function')).not.toBeInstanceOf(CliError);
    expect(Object.assign(new Error('odd'), { exitCode: 2 })).not.toBeInstanceOf(CliError);
    expect(new UsageError('x')).toBeInstanceOf(CliError);
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

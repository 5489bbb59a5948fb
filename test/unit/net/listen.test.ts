/** Starting a server on a host and port: what cannot be bound is the user's to fix, said in words. */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { listenOn } from '../../../src/net/listen.js';

describe('listenOn', () => {
  it('an address this machine does not have is exit 2 in words, never an errno name', async () => {
    // What the kernel answers for an address no interface has, given as is: a host that allows binding foreign
    // addresses (net.ipv4.ip_nonlocal_bind) would bind a real one, and the test would prove nothing there.
    const server = createServer();
    server.listen = (() => {
      const error = Object.assign(new Error('listen EADDRNOTAVAIL: address not available 192.0.2.1'), {
        code: 'EADDRNOTAVAIL',
        syscall: 'listen',
      });
      process.nextTick(() => server.emit('error', error));
      return server;
    }) as typeof server.listen;
    await expect(listenOn(server, 0, '192.0.2.1')).rejects.toMatchObject({
      exitCode: 2,
      message: 'cannot listen on 192.0.2.1:0 (the address is not available on this machine)',
      hint: 'Choose another --host or --port.',
    });
  });

  it('a port in use names it and the way out', async () => {
    const first = createServer();
    await listenOn(first, 0, '127.0.0.1');
    const address = first.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const second = createServer();
    await expect(listenOn(second, port, '127.0.0.1')).rejects.toMatchObject({
      exitCode: 2,
      message: `port ${port} on 127.0.0.1 is already in use`,
    });
    await new Promise((resolve) => first.close(resolve));
  });
});

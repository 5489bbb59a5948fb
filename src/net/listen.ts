import type { Server } from 'node:net';
import { systemErrorWords, UsageError } from '../errors.js';

/**
 * Starts `server` on host:port. A port in use or an address that cannot be bound is the user's to fix (UsageError,
 * exit 2, naming `--port 0`), never "a bug in taskctl". Shared by `taskctl sandbox` and `webhook listen`.
 */
export function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(
          new UsageError(
            `port ${port} on ${host} is already in use`,
            'Stop the other process, or pass --port 0 for a free port.',
          ),
        );
      } else if (error.code === 'EACCES' || error.code === 'EADDRNOTAVAIL') {
        reject(
          new UsageError(
            `cannot listen on ${host}:${port} (${systemErrorWords(error)})`,
            'Choose another --host or --port.',
          ),
        );
      } else reject(error);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

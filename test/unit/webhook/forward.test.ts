/** A forward that fails says so in plain words, with the URL and the next step; never Node's errno text. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { forwardEvent } from '../../../src/webhook/forward.js';
import { T0 } from '../../clock.js';

/** A loopback port nothing listens on a moment after this returns. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('forwardEvent', () => {
  it('a refused connection: the URL, "connection refused" and the next step; no errno name', async () => {
    const port = await closedPort();
    const lines: string[] = [];
    const ok = await forwardEvent({
      to: new URL(`http://127.0.0.1:${port}/hook`),
      label: 'completed task 7',
      raw: '{}',
      userAgent: undefined,
      apiKey: 'k',
      log: (line) => lines.push(line),
      now: () => T0,
    });
    expect(ok).toBe(false);
    expect(lines).toEqual([
      `forward completed task 7 to http://127.0.0.1:${port}/hook failed: connection refused (nothing listens there); check that the app is running and listens at 127.0.0.1:${port}`,
    ]);
    expect(lines.join('')).not.toMatch(/ECONN|fetch failed/);
  });
});

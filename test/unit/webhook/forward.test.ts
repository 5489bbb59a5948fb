/** A forward that fails says so in plain words, with the URL and the next step; never Node's errno text. */
import { describe, expect, it } from 'vitest';
import { forwardEvent } from '../../../src/webhook/forward.js';
import { T0 } from '../../clock.js';
import { CLOSED_HOST, freePort } from '../../e2e/spawn-cli.js';

describe('forwardEvent', () => {
  it('a refused connection: the URL, "connection refused" and the next step; no errno name', async () => {
    const port = await freePort(CLOSED_HOST);
    const lines: string[] = [];
    const ok = await forwardEvent({
      to: new URL(`http://${CLOSED_HOST}:${port}/hook`),
      label: 'completed task 7',
      raw: '{}',
      userAgent: undefined,
      apiKey: 'k',
      log: (line) => lines.push(line),
      now: () => T0,
    });
    expect(ok).toBe(false);
    expect(lines).toEqual([
      `forward completed task 7 to http://${CLOSED_HOST}:${port}/hook failed: connection refused (nothing listens there); check that the app is running and listens at ${CLOSED_HOST}:${port}`,
    ]);
    expect(lines.join('')).not.toMatch(/ECONN|fetch failed/);
  });
});

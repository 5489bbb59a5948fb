import { Server, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import {
  admin,
  createTask,
  deliveriesWhen,
  eventually,
  recordingScheduler,
  startReceiver,
  type Json,
} from './sandbox-calls.js';

/**
 * The open sockets and listeners on the sandbox's port: its listener, the connections it accepted and this process's
 * ends of them. Counted by port, not in total: the worker runs other files too, whose sockets may still be closing.
 */
function sandboxSockets(origin: string): number {
  const port = Number(new URL(origin).port);
  const handles = (process as unknown as { _getActiveHandles: () => unknown[] })._getActiveHandles();
  return handles.filter(
    (h) =>
      (h instanceof Socket && !h.destroyed && (h.localPort === port || h.remotePort === port)) ||
      (h instanceof Server && h.listening && (h.address() as { port?: number } | null)?.port === port),
  ).length;
}

describe('sandbox close()', () => {
  it('stops lifecycle and redelivery timers, ends delayed requests and closes every socket', async () => {
    const receiver = await startReceiver(() => 500);
    const { scheduler, pending } = recordingScheduler();
    // Items of 40 s: the task's completion is still ahead at close(); the failed delivery retries 5 s × 4 = 20 s after
    // its first attempt, far past close() even on a loaded machine. Neither is waited for: each is a pending timer.
    const sb = await startSandbox({
      port: 0,
      itemMs: 40_000,
      webhookUrl: receiver.url,
      webhookTimeScale: 4,
      scheduler,
    });
    await createTask(sb, ['a.com', 'b.com']);
    await deliveriesWhen(sb, (list) => list[0]?.attempts.length === 1);
    await admin(sb, '/faults', { method: 'GET', path: '/balance', kind: 'delay', delayMs: 60_000 });
    const hanging = fetch(`${sb.url}/balance`, { headers: { 'X-API-Key': sb.apiKey } }).catch(
      (error: unknown) => error,
    );
    let faults: Json[] = [];
    await eventually(async () => ((faults = (await admin(sb, '/faults')).body.faults), faults.length === 0), {
      describe: () => `faults not yet used: ${JSON.stringify(faults)}`,
    });
    expect(sandboxSockets(sb.origin)).toBeGreaterThanOrEqual(3); // the listener and both ends of the held request
    const [pending0] = (await admin(sb, '/deliveries')).body.deliveries;
    expect(pending0).toMatchObject({ state: 'retrying', attempts: [{ statusCode: 500 }] });
    // The redelivery (20 s), the delayed answer (60 s) and the task's next transition (its completion: two items of 40 s).
    const delays = [...pending.values()];
    expect(delays).toContain(20_000);
    expect(delays).toContain(60_000);
    expect(delays.filter((ms) => ms > 60_000)).not.toHaveLength(0);

    await sb.close();
    expect([...pending.values()]).toEqual([]); // every timer cancelled: nothing is left to fire, so nothing is waited for
    expect(await hanging).toBeInstanceOf(Error); // the delayed request's socket was closed, not answered
    expect(receiver.received).toHaveLength(1);
    await eventually(() => sandboxSockets(sb.origin) === 0, {
      timeoutMs: 2_000,
      describe: () => `${sandboxSockets(sb.origin)} sockets still open on the sandbox's port`,
    });
    await expect(fetch(`${sb.url}/balance`)).rejects.toThrow();
    expect(pending.size).toBe(0); // and none was started after close()
  });
});

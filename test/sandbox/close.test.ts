import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { admin, createTask, deliveriesWhen, eventually, sleep, startReceiver } from './helpers.js';

const sockets = () =>
  process.getActiveResourcesInfo().filter((name) => name === 'TCPServerWrap' || name === 'TCPSocketWrap').length;

describe('sandbox close()', () => {
  it('stops lifecycle and retry timers, ends delayed requests and closes every socket', async () => {
    const receiver = await startReceiver(() => 500);
    const before = sockets();
    // Processing at 50 ms, completion at 650 ms; the failed delivery retries 5 s × 0.4 = 2 s after its first attempt
    // (at 0.1, 500 ms, a loaded machine reached close() after the retry).
    const sb = await startSandbox({ port: 0, itemMs: 300, webhookUrl: receiver.url, webhookTimeScale: 0.4 });
    await createTask(sb, ['a.com', 'b.com']);
    await deliveriesWhen(sb, (list) => list[0]?.attempts.length === 1);
    await admin(sb, '/faults', { method: 'GET', path: '/balance', kind: 'delay', delayMs: 60_000 });
    const hanging = fetch(`${sb.url}/balance`, { headers: { 'X-API-Key': sb.apiKey } }).catch(
      (error: unknown) => error,
    );
    await eventually(async () => (await admin(sb, '/faults')).body.faults.length === 0);
    expect(sockets()).toBeGreaterThan(before);
    const [pending] = (await admin(sb, '/deliveries')).body.deliveries;
    expect(pending).toMatchObject({ state: 'retrying', attempts: [{ statusCode: 500 }] });

    await sb.close();
    expect(await hanging).toBeInstanceOf(Error); // the delayed request's socket was closed, not answered
    expect(receiver.received).toHaveLength(1);
    await sleep(2_500); // past the retry and the completion
    expect(receiver.received).toHaveLength(1);
    await eventually(() => sockets() <= before, 2_000);
    await expect(fetch(`${sb.url}/balance`)).rejects.toThrow();
  });
});

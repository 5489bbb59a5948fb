/**
 * src/webhook/sandbox-wiring.ts against a real sandbox on port 0: the listener sets the sandbox's webhook URL and puts
 * the previous one back only if it is still the one it set, with a change made in the dashboard between its steps.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { WebhookWirings } from '../../../src/store/webhook-wirings.js';
import { findSandbox, unwire, wire, type SandboxAdmin } from '../../../src/webhook/sandbox-wiring.js';

const OLD_URL = 'http://127.0.0.1:9/old-receiver';

let sandbox: RunningSandbox | undefined;
let home: string | undefined;

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

async function world(): Promise<RunningSandbox> {
  sandbox = await startSandbox({ port: 0, itemMs: 5, rateLimit: 0, webhookTimeScale: 0.001, webhookUrl: OLD_URL });
  home = mkdtempSync(join(tmpdir(), 'taskctl-wiring-'));
  return sandbox;
}

async function admin<T>(path: string, body?: object): Promise<T> {
  const response = await fetch(`${sandbox!.origin}/__sandbox${path}`, {
    method: body ? 'POST' : 'GET',
    ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  return (await response.json()) as T;
}

const webhookUrl = async (): Promise<string | null> =>
  (await admin<{ webhookUrl: string | null }>('/state?tasks=false')).webhookUrl;

describe('the sandbox webhook URL, set and put back only if it is still the one expected', () => {
  /** The real admin API, with a change made in the dashboard right after the listener's first read of the URL. */
  async function racedAdmin(change: string): Promise<SandboxAdmin> {
    const real = await findSandbox(sandbox!.url);
    if (!real) throw new Error('no sandbox found');
    let reads = 0;
    return {
      origin: real.origin,
      setWebhookUrl: (url, expected) => real.setWebhookUrl(url, expected),
      async webhookUrl() {
        const url = await real.webhookUrl();
        if (++reads === 1) await admin('/webhook', { url: change });
        return url;
      },
    };
  }
  const deps = (admin: SandboxAdmin) => ({
    admin,
    wirings: new WebhookWirings(home!),
    now: () => 1,
    log: () => {},
  });

  it('a URL changed between the read and the set: the listener records what it really replaced', async () => {
    await world();
    const wiring = await wire(deps(await racedAdmin('http://127.0.0.1:9/dashboard')), 'http://127.0.0.1:9/mine');
    expect(await webhookUrl()).toBe('http://127.0.0.1:9/mine');
    expect(wiring.previous).toBe('http://127.0.0.1:9/dashboard');
  });

  it('a URL changed in the dashboard just before the listener puts its own back is never overwritten', async () => {
    await world();
    const real = (await findSandbox(sandbox!.url))!;
    const wiring = await wire(deps(real), 'http://127.0.0.1:9/mine');
    // The change lands after anything the listener could have read, just before its restore reaches the sandbox.
    const late: SandboxAdmin = {
      ...real,
      async setWebhookUrl(url, expected) {
        await admin('/webhook', { url: 'http://127.0.0.1:9/dashboard' });
        return real.setWebhookUrl(url, expected);
      },
    };
    const { outcome } = await unwire(deps(late), wiring);
    expect(outcome).toBe('changed');
    expect(await webhookUrl()).toBe('http://127.0.0.1:9/dashboard');
    expect(new WebhookWirings(home!).find(wiring)).toBeUndefined();
  });
});

/**
 * src/webhook/sandbox-wiring.ts against a real sandbox on port 0: the listener sets the sandbox's webhook URL and puts
 * the previous one back only if it is still the one it set, with a change made in the dashboard between its steps.
 * The dashboard's changes and the checks go through the admin API directly, not through the module under test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { WebhookWirings } from '../../../src/store/webhook-wirings.js';
import { findSandbox, unwire, wire, wiringProblem, type SandboxAdmin } from '../../../src/webhook/sandbox-wiring.js';
import { admin } from '../../sandbox/sandbox-calls.js';
import { T0 } from '../../clock.js';

const MINE = 'http://127.0.0.1:9/mine';
const DASHBOARD = 'http://127.0.0.1:9/dashboard';

interface World {
  sandbox: RunningSandbox;
  /** The sandbox's admin API as the wiring module sees it. */
  real: SandboxAdmin;
  deps: (admin: SandboxAdmin) => Parameters<typeof wire>[0];
  /** A change made in the dashboard. */
  setInDashboard: (url: string) => Promise<void>;
  webhookUrl: () => Promise<unknown>;
  wirings: () => WebhookWirings;
}

/** A sandbox with a webhook URL already set and a home for the wirings' record, both gone when the test ends. */
async function world(): Promise<World> {
  const sandbox = await startSandbox({ port: 0, rateLimit: 0, webhookUrl: 'http://127.0.0.1:9/old-receiver' });
  const home = mkdtempSync(join(tmpdir(), 'taskctl-wiring-'));
  onTestFinished(async () => {
    await sandbox.close();
    rmSync(home, { recursive: true, force: true });
  });
  const real = await findSandbox(sandbox.url);
  if (!real) throw new Error('no sandbox found');
  return {
    sandbox,
    real,
    deps: (adminApi) => ({ admin: adminApi, wirings: new WebhookWirings(home), now: () => T0, log: () => {} }),
    setInDashboard: async (url) => {
      await admin(sandbox, '/webhook', { url });
    },
    webhookUrl: async () => (await admin(sandbox, '/state?tasks=false')).body.webhookUrl,
    wirings: () => new WebhookWirings(home),
  };
}

describe('the sandbox webhook URL, set and put back only if it is still the one expected', () => {
  it('a URL changed between the read and the set: the listener records what it really replaced', async () => {
    const w = await world();
    let reads = 0;
    // The real admin API, with a change made in the dashboard right after the listener's first read of the URL.
    const raced: SandboxAdmin = {
      ...w.real,
      async webhookUrl() {
        const url = await w.real.webhookUrl();
        if (++reads === 1) await w.setInDashboard(DASHBOARD);
        return url;
      },
    };
    const wiring = await wire(w.deps(raced), MINE);
    expect(await w.webhookUrl()).toBe(MINE);
    expect(wiring.previous).toBe(DASHBOARD);
  });

  it('a URL changed in the dashboard just before the listener puts its own back is never overwritten', async () => {
    const w = await world();
    const wiring = await wire(w.deps(w.real), MINE);
    // The change lands after anything the listener could have read, just before its restore reaches the sandbox.
    const late: SandboxAdmin = {
      ...w.real,
      async setWebhookUrl(url, expected) {
        await w.setInDashboard(DASHBOARD);
        return w.real.setWebhookUrl(url, expected);
      },
    };
    const { outcome } = await unwire(w.deps(late), wiring);
    expect(outcome).toBe('changed');
    expect(await w.webhookUrl()).toBe(DASHBOARD);
    expect(w.wirings().find(wiring)).toBeUndefined();
  });
});

describe('a wiring that fails says why in words', () => {
  it("the sandbox's own refusal, a sandbox gone, a record it cannot write: never Node's or undici's text", async () => {
    const w = await world();
    const refused = await w.real.setWebhookUrl('https://example.com/hook', null).catch(wiringProblem);
    expect(refused).toBe(
      'the sandbox refused POST /webhook (HTTP 422): webhook URL "https://example.com/hook" is not on this machine; the sandbox only delivers to loopback (localhost, 127.0.0.1, ::1)',
    );
    await w.sandbox.close();
    const gone = await w.real.setWebhookUrl(MINE, null).catch(wiringProblem);
    // Refused, or the kept-alive connection closed under it: either way in words.
    expect(gone).toMatch(/^the sandbox did not answer: (connection refused|the connection closed before)/);
    const full = Object.assign(new Error("ENOSPC: no space left on device, write '/x/webhook-wirings.json'"), {
      code: 'ENOSPC',
    });
    expect(wiringProblem(full)).toBe('the disk is full');
  });
});

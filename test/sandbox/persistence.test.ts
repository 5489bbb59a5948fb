import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { admin, call, createTask, start } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'taskctl-sandbox-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('sandbox state file', () => {
  it('keeps tasks, balance, rotated key, id counter and webhook URL across a restart', async () => {
    const stateFile = join(dir, 'state.json');
    const first = await startSandbox({ port: 0, itemMs: 0, stateFile, balance: 500 });
    await createTask(first, ['a.com', 'fail-b.com']);
    await createTask(first, ['c.com'], 'domain_whois_history');
    await admin(first, '/webhook', { url: 'http://127.0.0.1:1/hook' });
    const { apiKey } = (await admin(first, '/rotate-key', {})).body;
    const before = (await call(first, '/tasks/1', { key: apiKey })).body.data;
    await first.close();

    // Options seed only a new state: the saved balance and key win.
    const second = await start({ itemMs: 0, stateFile, balance: 1, apiKey: 'sk_ignored_0000' });
    expect(second.apiKey).toBe(apiKey);
    expect((await call(second, '/balance')).body.data.balance).toBe(493);
    expect((await call(second, '/tasks/1')).body.data).toEqual(before);
    expect((await admin(second, '/state')).body.webhookUrl).toBe('http://127.0.0.1:1/hook');
    expect((await createTask(second, ['d.com'])).body.data.id).toBe(3);
    expect((await call(second, '/tasks')).body.data.map((t: any) => t.id)).toEqual([3, 2, 1]);
  });

  it('saves after mutations without waiting for close, atomically', async () => {
    const stateFile = join(dir, 'state.json');
    const sb = await start({ stateFile });
    await createTask(sb, ['a.com']);
    const text = await eventuallyRead(stateFile);
    const json = JSON.parse(text);
    expect(json).toMatchObject({ version: 1, balance: 9_999, nextId: 2, tasks: [{ id: 1, items: ['a.com'] }] });
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses a corrupt state file instead of silently starting fresh', async () => {
    const stateFile = join(dir, 'state.json');
    await writeFile(stateFile, '{"version": 1, "balance": "lots"}');
    await expect(startSandbox({ port: 0, stateFile })).rejects.toThrow(/not a taskctl sandbox state/);
    await writeFile(stateFile, 'garbage');
    await expect(startSandbox({ port: 0, stateFile })).rejects.toThrow(/not valid JSON/);
  });
});

async function eventuallyRead(file: string): Promise<string> {
  const deadline = Date.now() + 2_000;
  for (;;) {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

import { mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { loadStateFile, StateStore } from '../../src/sandbox/persistence.js';
import { notRunningPid } from '../unit/pids.js';
import { SandboxState } from '../../src/sandbox/state.js';
import { UsageError } from '../../src/errors.js';
import { admin, call, createTask, type Json } from './sandbox-calls.js';

let dir: string;
const running: RunningSandbox[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'taskctl-sandbox-'));
});
afterEach(async () => {
  // Close first: a sandbox's close writes its state file into `dir` (removing the directory first raced it: ENOTEMPTY).
  await Promise.all(running.splice(0).map((sandbox) => sandbox.close()));
  await rm(dir, { recursive: true, force: true });
});

async function start(options: SandboxOptions): Promise<RunningSandbox> {
  const sandbox = await startSandbox({ port: 0, itemMs: 5, ...options });
  running.push(sandbox);
  return sandbox;
}

const fresh = { balance: 0, apiKey: 'unused', keyRotations: 0, nextId: 1, webhookUrl: null, tasks: [] };

describe('sandbox state file', () => {
  it('keeps tasks, balance, rotated key, id counter and webhook URL across a restart', async () => {
    const stateFile = join(dir, 'state.json');
    const first = await start({ itemMs: 0, stateFile, balance: 500 });
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
    expect((await call(second, '/tasks')).body.data.map((t: Json) => t.id)).toEqual([3, 2, 1]);
  });

  it('has every acknowledged change on disk before the reply, without close', async () => {
    const stateFile = join(dir, 'state.json');
    const sb = await start({ stateFile, balance: 100 });
    const created = await Promise.all([1, 2, 3, 4, 5].map((n) => createTask(sb, [`a${n}.com`])));
    expect(created.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    await admin(sb, '/balance', { balance: 77 });
    const onDisk = loadStateFile(stateFile, fresh);
    expect(onDisk?.tasks.map((t) => t.id)).toEqual([1, 2, 3, 4, 5]);
    expect(onDisk).toMatchObject({ balance: 77, nextId: 6 });
  });

  it('leaves only the state file after close: no journal, lock or temp files', async () => {
    const stateFile = join(dir, 'state.json');
    await writeFile(join(dir, '.state.json.12345.abcd0123.tmp'), '{"half'); // left by a killed sandbox
    const sb = await start({ stateFile });
    await createTask(sb, ['a.com']);
    await sb.close();
    expect(await readdir(dir)).toEqual(['state.json']);
    expect(JSON.parse(await readFile(stateFile, 'utf8'))).toMatchObject({
      version: 1,
      balance: 9_999,
      nextId: 2,
      tasks: [{ id: 1, items: ['a.com'] }],
    });
  });

  it('refuses a second sandbox on the same file (exit 2) until the first closes', async () => {
    const stateFile = join(dir, 'state.json');
    const first = await start({ stateFile });
    const error = await startSandbox({ port: 0, stateFile }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as Error).message).toMatch(/state\.json is in use by another sandbox \(process \d+/);
    // The holder runs (this process): its lock is never to be deleted, only a number reused by another program's.
    expect((error as UsageError).hint).toMatch(
      /^Stop that sandbox, or pass another --state file: its lock goes with it/,
    );
    expect((error as UsageError).hint).toMatch(/Only if `ps -p \d+ -o args=` shows no taskctl/);
    await createTask(first, ['a.com']);
    await first.close();
    const second = await start({ stateFile });
    expect((await createTask(second, ['b.com'])).body.data.id).toBe(2);
  });

  it('takes over the lock of a sandbox that was killed', async () => {
    const stateFile = join(dir, 'state.json');
    const pid = notRunningPid();
    await writeFile(`${stateFile}.lock`, JSON.stringify({ pid, host: hostname(), at: Date.now(), token: 't' }));
    const sb = await start({ stateFile });
    expect((await createTask(sb, ['a.com'])).status).toBe(201);
  });

  it('replays the journal of a killed sandbox; a torn last line (never acknowledged) is dropped', async () => {
    const stateFile = join(dir, 'state.json');
    const task = (id: number) => ({ id, service: 'domain_check_availability', items: [`t${id}.com`], cost: 1 });
    const times = { createdAt: 1, startAt: 1, itemMs: 0 };
    const line = (id: number, balance: number) =>
      JSON.stringify({
        balance,
        apiKey: 'sk_sandbox_0000',
        keyRotations: 0,
        nextId: id + 1,
        webhookUrl: null,
        tasks: [{ ...task(id), ...times }],
      });
    await writeFile(
      stateFile,
      JSON.stringify({
        version: 1,
        balance: 10,
        apiKey: 'sk_sandbox_0000',
        keyRotations: 0,
        nextId: 1,
        webhookUrl: null,
        tasks: [],
      }),
    );
    // Line 1 is also replayed onto a file that already has it (a kill between compaction and journal reset).
    await writeFile(`${stateFile}.journal`, `${line(1, 9)}\n${line(1, 9)}\n${line(2, 8)}\n${line(3, 7).slice(0, 40)}`);
    const sb = await start({ stateFile });
    expect((await call(sb, '/tasks')).body.data.map((t: Json) => t.id)).toEqual([2, 1]);
    expect((await call(sb, '/balance')).body.data.balance).toBe(8);
    expect((await createTask(sb, ['next.com'])).body.data.id).toBe(3);
  });

  it('refuses a corrupt state file or journal instead of silently starting fresh', async () => {
    const stateFile = join(dir, 'state.json');
    await writeFile(stateFile, '{"version": 1, "balance": "lots"}');
    // The field named, in words: no schema library's text.
    await expect(startSandbox({ port: 0, stateFile })).rejects.toThrow(
      `state file ${stateFile} is not a state file of \`taskctl sandbox\` (its "balance" is missing or not what it should be)`,
    );
    await writeFile(stateFile, 'garbage');
    await expect(startSandbox({ port: 0, stateFile })).rejects.toThrow(/not valid JSON/);
    await rm(stateFile);
    await writeFile(`${stateFile}.journal`, 'garbage\n{"also":"garbage"}\n');
    await expect(startSandbox({ port: 0, stateFile })).rejects.toThrow(/journal .* is corrupt at line 1/);
    // A refused start releases the file: the next start after a fix is not locked out.
    await rm(`${stateFile}.journal`);
    await start({ stateFile });
  });

  it('refuses a state file that is a symbolic link (exit 2)', async () => {
    const stateFile = join(dir, 'state.json');
    await writeFile(join(dir, 'target.json'), '{}');
    await symlink(join(dir, 'target.json'), stateFile);
    await expect(startSandbox({ port: 0, stateFile })).rejects.toThrow(/state file .* is a symbolic link/);
  });

  it("a state file whose lock cannot be made: a usage error naming the lock, in words, not the lock's owner file", () => {
    const stateFile = join(dir, 'missing', 'state.json');
    const open = () => StateStore.open(stateFile, fresh, () => {});
    expect(open).toThrow(UsageError);
    expect(open).toThrow(`cannot lock the state file (${stateFile}.lock): no such file or directory`);
    expect(open).not.toThrow(/ENOENT|\.new\./);
  });

  it('a failed journal write is not acknowledged, and nothing is shown as saved until a retry succeeds', async () => {
    const stateFile = join(dir, 'state.json');
    const logs: string[] = [];
    const { store } = StateStore.open(stateFile, { ...fresh, balance: 10 }, (line) => logs.push(line));
    const state = new SandboxState({ ...fresh, balance: 10 }, 'seed');
    await store.attach(state);
    const journal = (store as unknown as { journal: { write: (...args: unknown[]) => Promise<unknown> } }).journal;
    const write = journal.write.bind(journal);
    // As node:fs fails: Node's text names the errno, which people never see.
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), {
      code: 'ENOSPC',
      syscall: 'write',
    });
    journal.write = () => Promise.reject(full);
    state.createTask('domain_check_availability', 'domain', ['a.com'], 1, 1, 0);
    expect(await store.settle()).toBe(false);
    expect(logs.join('\n')).toMatch(/could not save state to .*state\.json\.journal: the disk is full$/);
    expect(logs.join('\n')).not.toContain('ENOSPC');
    expect(await store.settle()).toBe(false); // the next reply retries, and fails again
    journal.write = write;
    expect(await store.settle()).toBe(true);
    expect(store.settle()).toBeUndefined();
    expect(loadStateFile(stateFile, fresh)?.tasks.map((t) => t.id)).toEqual([1]);
    await store.close();
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('folds a grown journal into the file in the background, answering meanwhile; nothing is lost', async () => {
    const stateFile = join(dir, 'state.json');
    const { store } = StateStore.open(stateFile, { ...fresh, balance: 100_000 }, () => {});
    const state = new SandboxState({ ...fresh, balance: 100_000 }, 'seed');
    await store.attach(state);
    store.compactAfterBytes = 4096;
    for (let i = 0; i < 5000; i++) {
      state.createTask('domain_check_availability', 'domain', [`t${i}.com`], 1, 1, 0);
      if (i % 50 === 49) expect(await store.settle()).not.toBe(false);
    }
    expect(await store.settle()).not.toBe(false);
    const background = store as unknown as { compacting?: Promise<void> };
    while (background.compacting) await background.compacting;
    // Compacted at least once: the journal holds far less than the 5,000 tasks it was given one by one.
    const journal = await readFile(`${stateFile}.journal`, 'utf8').catch(() => '');
    const file = JSON.parse(await readFile(stateFile, 'utf8')) as { tasks: unknown[] };
    expect(file.tasks.length).toBeGreaterThan(1000);
    expect(journal.split('\n').length).toBeLessThan(100);
    const loaded = loadStateFile(stateFile, fresh);
    expect(loaded?.tasks.map((t) => t.id)).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
    expect(loaded?.balance).toBe(95_000);
    await store.close();
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('reads back a compaction cut short: the file, then .journal, then .journal.next (later lines win)', async () => {
    const stateFile = join(dir, 'state.json');
    const account = { balance: 10, apiKey: 'sk_sandbox_0000', keyRotations: 0, nextId: 1, webhookUrl: null };
    const task = (id: number) => ({
      id,
      service: 'domain_check_availability',
      items: [`t${id}.com`],
      cost: 1,
      createdAt: 1,
      startAt: 1,
      itemMs: 0,
    });
    await writeFile(stateFile, JSON.stringify({ version: 1, ...account, balance: 8, tasks: [task(1), task(2)] }));
    await writeFile(`${stateFile}.journal`, `${JSON.stringify({ ...account, balance: 8, tasks: [task(2)] })}\n`);
    await writeFile(`${stateFile}.journal.next`, `${JSON.stringify({ ...account, balance: 7, tasks: [task(3)] })}\n`);
    const loaded = loadStateFile(stateFile, fresh);
    expect(loaded?.tasks.map((t) => t.id)).toEqual([1, 2, 3]);
    expect(loaded?.balance).toBe(7);
    const sb = await start({ stateFile });
    expect((await createTask(sb, ['next.com'])).body.data.id).toBe(4);
    await sb.close();
    running.splice(0);
    expect((await readdir(dir)).sort()).toEqual(['state.json']);
  });
});

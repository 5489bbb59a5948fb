/**
 * Config writes from several real processes at once: none may lose another's update, and a writer killed with
 * SIGKILL at any moment leaves neither a corrupt file nor a lock that blocks the next command.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, startWorld, waitFor, type E2EWorld } from './spawn-cli.js';

let world: E2EWorld;
beforeEach(async () => {
  world = await startWorld({ itemMs: 0 });
});
afterEach(() => world.close());

const configDir = () => world.home.env.TASKCTL_CONFIG_DIR;
const saved = () =>
  JSON.parse(readFileSync(join(configDir(), 'config.json'), 'utf8')) as {
    profiles: Record<string, Record<string, unknown>>;
  };
const env = () => ({ ...world.env, TASKCTL_API_KEY: '', TASKCTL_BASE_URL: '' });

describe('config under concurrent writers', () => {
  // Two rounds: the first races to make the file, the second to update it. Four processes a round, two of each
  // command, so each kind of pair can race (set and set, set and login, login and login); many writers contending for
  // the same lock across processes are store-locks.test.ts' five cache writers, plain node each. Start-up under load
  // takes seconds, so each has a minute.
  it('2 config set and 2 auth login at once, 2 rounds: every value is there', { timeout: 150_000 }, async () => {
    for (let round = 1; round <= 2; round++) {
      const runs = [
        ...Array.from({ length: 2 }, (_, i) =>
          world.run(['--profile', `p${i}`, 'config', 'set', 'confirm-above', String(round * 100 + i)], {
            env: env(),
            timeoutMs: 60_000,
          }),
        ),
        ...[0, 1].map((j) =>
          world.run(['--profile', `login${j}`, 'auth', 'login', '--with-key', '--base-url', world.sandbox.origin], {
            env: env(),
            stdin: `${world.sandbox.apiKey}\n`,
            timeoutMs: 60_000,
          }),
        ),
      ];
      const results = await Promise.all(runs);
      for (const result of results) expect(result.stderr).toMatch(/✓|Logged in/);
      expect(results.map((r) => r.code)).toEqual(results.map(() => 0));
      const { profiles } = saved();
      for (let i = 0; i < 2; i++) expect(profiles[`p${i}`]).toEqual({ 'confirm-above': round * 100 + i });
      for (const j of [0, 1]) expect(profiles[`login${j}`]?.['api-key']).toBe(world.sandbox.apiKey);
    }
    expect(readdirSync(configDir())).toEqual(['config.json']);
  });

  it('writers killed with SIGKILL mid-flight leave a valid file and no lock that blocks the next write', async () => {
    const children = Array.from({ length: 6 }, (_, i) =>
      spawn(process.execPath, [BIN, '--profile', `k${i}`, 'config', 'set', 'output', 'json'], {
        env: { PATH: process.env.PATH ?? '', ...env() },
        stdio: 'ignore',
      }),
    );
    // The kills spread over what the writers reach, at events rather than after delays (which on a loaded machine all
    // land in start-up): two as they start, two once a lock is held, two once the file was written.
    const exited = children.map((child) => new Promise<void>((resolve) => child.once('exit', () => resolve())));
    const done = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;
    const inDir = () => (existsSync(configDir()) ? readdirSync(configDir()) : []);
    const killAt = async (group: ChildProcess[], reached: () => boolean, what: string) => {
      await waitFor(() => reached() || group.every(done), {
        timeoutMs: 60_000,
        everyMs: 2,
        describe: () => `no ${what}; the config dir holds ${JSON.stringify(inDir())}`,
      });
      for (const child of group) child.kill('SIGKILL');
    };
    await Promise.all([
      killAt(children.slice(0, 2), () => true, 'start'),
      killAt(children.slice(2, 4), () => inDir().some((name) => name.endsWith('.lock')), 'lock'),
      killAt(children.slice(4), () => inDir().includes('config.json'), 'config.json'),
    ]);
    await Promise.all(exited);
    if (existsSync(join(configDir(), 'config.json'))) {
      for (const profile of Object.values(saved().profiles)) expect(profile).toEqual({ output: 'json' });
    }
    // A dead writer's lock is taken over, not waited out: waiting out a live-looking lock ends in exit 2 ("locked by").
    const after = await world.inProcess(['--profile', 'after', 'config', 'set', 'output', 'csv'], { env: env() });
    expect(after.stderr).toMatch(/✓ output = csv/);
    expect(after.code).toBe(0);
    expect(saved().profiles.after).toEqual({ output: 'csv' });
    expect(readdirSync(configDir()).filter((name) => name !== 'config.json')).toEqual([]);
  });
});

describe('config files that are not what they claim to be', () => {
  it('a FIFO as config.json: balance exits 2 at once with a clear message instead of hanging', async () => {
    mkdirSync(configDir(), { recursive: true, mode: 0o700 });
    if (spawnSync('mkfifo', [join(configDir(), 'config.json')]).status !== 0) return;
    // A hang would last for ever: the bound only has to outlast a start-up under load.
    const result = await world.run(['balance'], { timeoutMs: 30_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/config file .*config\.json is a FIFO \(named pipe\), not a regular file/);
  });

  it('a symlinked config.json: exit 2, and the target keeps its mode', async () => {
    mkdirSync(configDir(), { recursive: true, mode: 0o700 });
    const target = join(world.home.dir, 'shared.json');
    writeFileSync(target, '{"profiles":{}}');
    chmodSync(target, 0o644);
    symlinkSync(target, join(configDir(), 'config.json'));
    const result = await world.inProcess(['balance']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/is a symbolic link, not a regular file/);
    expect(statSync(target).mode & 0o777).toBe(0o644);
  });
});

/**
 * Disk state shared by several processes: the cases that need a real second process (or mkfifo), moved out of the
 * unit tier, which spawns nothing. One process's locking (two holders, a dead owner's lock) stays in test/unit. The
 * other processes run the writers in fixtures/, bundled once by esbuild so that each starts as plain node (through
 * tsx each start cost over a second of CPU).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { codeCacheFile } from '../../src/boot/code-cache.js';
import { CompletionCacheStore } from '../../src/store/cache.js';
import { openConfig } from '../../src/store/config-file.js';
import { exitOf, postsReceived, runCli, startWorld, waitFor, type E2EWorld } from './spawn-cli.js';

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'taskctl-store-locks-'));
  dir = join(root, 'cfg');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const open = (timeoutMs?: number) => openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {}, timeoutMs);

/** fixtures/NAME.ts bundled (src and its packages inlined) into a temp dir: NAME.mjs, run by plain node. */
let bundles: string;
beforeAll(async () => {
  bundles = mkdtempSync(join(tmpdir(), 'taskctl-store-locks-bundles-'));
  await build({
    entryPoints: ['cache-writer', 'config-writer'].map((name) =>
      fileURLToPath(new URL(`./fixtures/${name}.ts`, import.meta.url)),
    ),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir: bundles,
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
});
afterAll(() => rmSync(bundles, { recursive: true, force: true }));
const fixture = (name: string) => join(bundles, `${name}.mjs`);

describe('config file across processes', () => {
  it('refuses a FIFO as config.json at once instead of hanging', async () => {
    mkdirSync(dir, { mode: 0o700 });
    const made = spawnSync('mkfifo', [join(dir, 'config.json')]);
    if (made.status !== 0) return; // no mkfifo on this platform
    await expect(open()).rejects.toThrow(/is a FIFO \(named pipe\), not a regular file/);
  });

  it('a writer killed with SIGKILL while writing its temp file leaves the old file whole; the next write recovers', async () => {
    const config = await open();
    await config.set('default', 'output', 'json');
    const writer = fixture('config-writer');
    let caught = false;
    /** What each write that was not caught looked like, for the failure. */
    const missed: string[] = [];
    for (let attempt = 0; attempt < 5 && !caught; attempt++) {
      const child = spawn(process.execPath, [writer, dir, String(12 * 1024 * 1024)], {
        stdio: 'ignore',
      });
      let looks = 0;
      // Looked at every millisecond until a temp file shows or the writer has ended (then: not caught, try again).
      const seen = await waitFor(
        () => {
          if (child.exitCode !== null || child.signalCode !== null) return 'ended';
          looks++;
          return readdirSync(dir).some((name) => name.endsWith('.tmp')) && 'tmp';
        },
        {
          timeoutMs: 20_000,
          everyMs: 1,
          describe: () => `the writer still runs after ${looks} looks; dir: ${readdirSync(dir).sort().join(', ')}`,
        },
      );
      if (seen === 'tmp') {
        child.kill('SIGKILL');
        caught = true;
      }
      await exitOf(child, { on: 'exit', describe: () => 'stdio ignored' });
      if (!caught) {
        const end = child.signalCode ?? `exit ${child.exitCode}`;
        missed.push(`write ${attempt + 1}: ${end} after ${looks} looks; dir: ${readdirSync(dir).sort().join(', ')}`);
        await config.set('default', 'base-url', 'https://a.example'); // too quick to catch: again
      }
    }
    expect(caught, `no .tmp file seen while the writer ran, in 5 writes:\n${missed.join('\n')}`).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(expect.arrayContaining(['config.json', 'config.json.lock']));
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default.output).toBe('json');
    await (await open(2_000)).set('default', 'confirm-above', 7);
    expect((await open()).profile('default')).toMatchObject({ output: 'json', 'confirm-above': 7 });
    expect(readdirSync(dir)).toEqual(['config.json']);
  });
});

describe('completion cache across processes', () => {
  it('loses no update when five processes write at once (read-modify-write under the lock)', async () => {
    const cache = new CompletionCacheStore(root, () => 0);
    cache.account = 'account-a';
    const exits = await Promise.all(
      [0, 1, 2, 3, 4].map(async (w) => {
        const writer = spawn(process.execPath, [fixture('cache-writer'), root, String(1 + w * 10), '10'], {
          stdio: 'inherit',
        });
        return (await exitOf(writer, { on: 'exit', describe: () => 'its output is inherited: above' })).code;
      }),
    );
    expect(exits).toEqual([0, 0, 0, 0, 0]);
    expect(cache.read().tasks.map((t) => t.id)).toEqual(Array.from({ length: 50 }, (_, i) => 50 - i));
    expect(readdirSync(root)).toEqual(['completion.json']);
  });

  it('ignores a FIFO as the cache file: reads it as empty and an update skips it', () => {
    const notes: string[] = [];
    const cache = new CompletionCacheStore(
      root,
      () => 0,
      (message) => notes.push(message),
    );
    cache.account = 'account-a';
    if (spawnSync('mkfifo', [cache.path]).status !== 0) return; // no mkfifo on this platform
    expect(cache.freshPrices(1000, 'x')).toBeUndefined();
    cache.rememberServices([{ service: 'svc', pricing: 1 }], 'x');
    expect(notes.length).toBeGreaterThan(0);
    expect(notes[0]).toMatch(/completion cache ignored: the cache file .* is a FIFO/);
  });
});

/**
 * A FIFO where a lock file is expected: opened for real, it would block the process in open(), where no signal is
 * handled (only SIGKILL ended it). Each command that takes such a lock is exit 2 at once, naming it and what to do, and
 * leaves nothing new behind. The process is the subject: a hang is what is ruled out.
 */
describe('a FIFO at a lock path', () => {
  const FIFO_WORDS = /the lock file (\S+) is a FIFO \(named pipe\), not a regular file[^\n]*\nRemove it/;
  /** Well within runProcess's SIGKILL bound (20 s): a run that hung would be killed and fail the test. */
  const BOUND_MS = 15_000;
  let world: E2EWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it('at a job’s lock: its resume is exit 2 naming it, a create of other items goes on, jobs lists it with a warning', async () => {
    world = await startWorld();
    // The job whose lock becomes a FIFO: made in process (no lock is odd yet, so its process proves nothing).
    const first = await world.inProcess(['create', 'domain_check_availability', 'fifo1.example.com', '-q']);
    expect(first.code, first.stderr).toBe(0);
    const state = world.home.env.TASKCTL_STATE_DIR;
    const journals = () => readdirSync(join(state, 'jobs')).sort();
    const before = journals();
    const id = /^(j-[a-z0-9]+)\.jsonl$/.exec(before.find((name) => name.endsWith('.jsonl')) ?? '')?.[1];
    if (id === undefined) throw new Error(`no journal in ${before.join(', ')}`);
    const lock = join(state, 'locks', `${id}.lock`);
    if (spawnSync('mkfifo', [lock]).status !== 0) return; // no mkfifo on this platform
    // Another job's odd lock is not this create's: only a job it could continue has its lock read.
    const other = await world.run(['create', 'domain_check_availability', 'fifo2.example.com', '-q'], {
      timeoutMs: 20_000,
    });
    expect(other.code, other.stderr).toBe(0);
    const posts = await postsReceived(world);
    for (const args of [['resume', id]]) {
      const started = Date.now();
      const result = await world.run(args, { timeoutMs: 20_000 });
      expect(Date.now() - started).toBeLessThan(BOUND_MS);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toMatch(FIFO_WORDS);
      expect(FIFO_WORDS.exec(result.stderr)?.[1]).toBe(lock);
      expect(result.stderr.trim().split('\n')).toHaveLength(2);
    }
    // Listing every job is not failed by one odd job: --prune leaves it as it is, naming it on stderr (a listing
    // without --prune does not look at a finished job's lock).
    for (const args of [
      ['jobs', '--prune', '-o', 'json'],
      ['jobs', '-q'],
    ]) {
      const started = Date.now();
      const result = await world.run(args, { timeoutMs: 20_000 });
      expect(Date.now() - started).toBeLessThan(BOUND_MS);
      expect({ args, code: result.code }).toEqual({ args, code: 0 });
      if (args.includes('--prune')) {
        expect(result.stderr).toContain(`warning: job ${id}: the lock file ${lock} is a FIFO (named pipe)`);
        expect(result.stderr).toContain('Remove it');
        expect((JSON.parse(result.stdout) as Array<{ id: string }>).map((row) => row.id)).toContain(id);
      } else expect(result.stdout.trim()).toBe(id);
    }
    // The odd job left as it was (the other create's, finished, pruned); the refused resume made nothing.
    expect(journals()).toEqual(before);
    expect(await postsReceived(world)).toBe(posts); // nothing was sent after the other create
  }, 120_000);

  it('at config.json.lock (config set) and beside a spool (webhook listen --spool): exit 2, nothing made', async () => {
    const cfg = join(root, 'config');
    mkdirSync(cfg, { mode: 0o700 });
    if (spawnSync('mkfifo', [join(cfg, 'config.json.lock')]).status !== 0) return; // no mkfifo on this platform
    const spoolDir = join(root, 'spool');
    mkdirSync(spoolDir);
    spawnSync('mkfifo', [join(spoolDir, 'events.spool.lock')]);
    const env = {
      HOME: root,
      TASKCTL_CONFIG_DIR: cfg,
      TASKCTL_CACHE_DIR: join(root, 'cache'),
      TASKCTL_STATE_DIR: join(root, 'state'),
      TASKCTL_API_KEY: 'sk_test_0000',
    };
    for (const [args, lock, dirOf] of [
      [['config', 'set', 'confirm-above', '5'], join(cfg, 'config.json.lock'), cfg],
      [
        ['webhook', 'listen', '--port', '0', '--spool', join(spoolDir, 'events.spool')],
        join(spoolDir, 'events.spool.lock'),
        spoolDir,
      ],
    ] as const) {
      const started = Date.now();
      const result = await runCli([...args], { env, timeoutMs: 20_000 });
      expect(Date.now() - started).toBeLessThan(BOUND_MS);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(FIFO_WORDS.exec(result.stderr)?.[1]).toBe(lock);
      expect(readdirSync(dirOf)).toEqual([lock.slice(dirOf.length + 1)]);
    }
    expect(existsSync(join(cfg, 'config.json'))).toBe(false);
  }, 60_000);
});

/**
 * A FIFO where the bundle's code cache is expected (boot/code-cache.ts): read at start, before any signal handler, a
 * blocking open would hold the process for good. It is passed over as no cache, and the run's save replaces it.
 */
describe('a FIFO at the code cache file', () => {
  it('starts as without a cache, and the save at exit puts a cache file in its place', async () => {
    const cache = join(root, 'cache');
    const bundle = fileURLToPath(new URL('../../dist/taskctl.cjs', import.meta.url));
    const file = codeCacheFile(join(cache, 'compile', 'taskctl'), ['config'], bundle);
    mkdirSync(join(cache, 'compile', 'taskctl'), { recursive: true, mode: 0o700 });
    if (spawnSync('mkfifo', [file]).status !== 0) return; // no mkfifo on this platform
    const env = {
      HOME: root,
      TASKCTL_CONFIG_DIR: join(root, 'config'),
      TASKCTL_CACHE_DIR: cache,
      TASKCTL_STATE_DIR: join(root, 'state'),
    };
    const started = Date.now();
    const result = await runCli(['config', 'path'], { env, timeoutMs: 20_000 });
    expect(Date.now() - started).toBeLessThan(15_000); // a hang is killed at 20 s
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(lstatSync(file).isFile()).toBe(true);
  }, 60_000);
});

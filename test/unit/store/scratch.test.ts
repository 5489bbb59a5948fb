/**
 * Scratch dirs go on every exit; a killed run's (SIGKILL, a crash) is swept by the next run that uses scratch, at once,
 * when no live process holds its lock (a FIFO held open for reading) — whatever its pid or age.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Scratch, sweepScratch } from '../../../src/store/scratch.js';

const HOUR_AGO = (Date.now() - 3_600_000) / 1000;
const hasMkfifo = spawnSync('mkfifo', ['--version'], { stdio: 'ignore' }).status === 0;

let parent: string;
beforeEach(() => {
  parent = mkdtempSync(join(tmpdir(), 'taskctl-scratch-test-'));
});
afterEach(() => rmSync(parent, { recursive: true, force: true }));

/** A scratch dir made by a child process that holds it while it runs: the dir, and a signal sender. */
async function heldByChild(): Promise<{ dir: string; signal: (signal: NodeJS.Signals) => Promise<void> }> {
  const module = JSON.stringify(new URL('../../../src/store/scratch.ts', import.meta.url).href);
  const script = `
    import { writeFileSync } from 'node:fs';
    const { Scratch } = await import(${module});
    const scratch = new Scratch(${JSON.stringify(parent)});
    writeFileSync(scratch.path('run-1'), 'x');
    process.stdout.write(scratch.path('run-1') + '\\n');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const file = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', () => reject(new Error('the child ended early')));
  });
  return {
    dir: dirname(file),
    signal: async (signal) => {
      const ended = signal === 'SIGKILL' ? new Promise((resolve) => child.once('exit', resolve)) : undefined;
      child.kill(signal);
      await ended;
    },
  };
}

describe('scratch dirs', () => {
  it('are made on first use, locked, and removed by dispose', () => {
    const scratch = new Scratch(parent);
    expect(readdirSync(parent)).toEqual([]);
    const file = scratch.path('items');
    writeFileSync(file, 'a.com\n');
    expect(file).toMatch(/taskctl-scratch-[A-Za-z0-9]{6}[/\\]items$/);
    expect(readdirSync(parent)).toHaveLength(1);
    // A live run's dir is never swept, by itself or by another run.
    sweepScratch(parent);
    new Scratch(parent).dispose();
    expect(existsSync(file)).toBe(true);
    scratch.dispose();
    expect(readdirSync(parent)).toEqual([]);
  });

  it.runIf(hasMkfifo)(
    'a killed run leaves its dir; the next run sweeps it at once, however young; a live or stopped run keeps its own',
    { timeout: 20_000 },
    async () => {
      const killed = await heldByChild();
      const stopped = await heldByChild();
      await stopped.signal('SIGSTOP');
      await killed.signal('SIGKILL');
      expect(existsSync(killed.dir)).toBe(true);
      const scratch = new Scratch(parent);
      expect(existsSync(killed.dir)).toBe(false);
      expect(existsSync(stopped.dir)).toBe(true);
      scratch.dispose();
      await stopped.signal('SIGKILL');
      sweepScratch(parent);
      expect(readdirSync(parent)).toEqual([]);
    },
  );

  it('leaves a dir whose lock is not made yet for a few seconds, then sweeps it; leaves what is not ours', () => {
    const young = join(parent, 'taskctl-scratch-aBc123');
    const old = join(parent, 'taskctl-scratch-dEf456');
    const plainLock = join(parent, 'taskctl-scratch-gHi789');
    const other = join(parent, 'taskctl-items-1-aBc123');
    for (const dir of [young, old, plainLock, other]) mkdirSync(dir);
    writeFileSync(join(plainLock, 'live.fifo'), '');
    for (const dir of [old, plainLock, other]) utimesSync(dir, HOUR_AGO, HOUR_AGO);
    sweepScratch(parent);
    expect([young, old, plainLock, other].map((dir) => existsSync(dir))).toEqual([true, false, true, true]);
  });
});

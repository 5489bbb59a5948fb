/**
 * Where the suite's CPU goes, file by file and test by test (docs/performance.md#the-test-suite): with
 * `TASKCTL_TEST_CPU=FILE`, each test file appends to FILE, after each test, a line `test  SECONDS  PATH :: NAME` (this
 * worker's CPU during the test), and after the file `file  WORKER  CHILDREN  WALL  PATH`: the worker's CPU during the
 * file, and that of the processes it started and waited for (spawned `taskctl`, npm, chromium with its helpers; not
 * tmux's servers, which detach); then `split  USER  SYSTEM  CHILD_USER  CHILD_SYSTEM  FAULTS  PATH`, the same CPU split
 * into user and system time, and the worker's minor page faults during the file (each costs several µs in a VM); then
 * `span  START  END  PID  PATH`, when the file began and ended (seconds since the epoch) in which worker, to lay the
 * files beside a machine's busy cores second by second (where the cores idled, which files were running). With
 * isolate: false a worker runs one file at a time, so a file's figures are its own; a test's are muddled by the tests
 * that run beside it (`concurrent`). Linux only (`/proc/self/stat`).
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';

/**
 * utime, stime, cutime and cstime of this process, in seconds (the kernel counts in ticks of 1/100 s), then its minor
 * page faults.
 */
function cpuTimes(): number[] {
  const fields = (readFileSync('/proc/self/stat', 'utf8').split(') ')[1] ?? '').split(' ');
  return [...fields.slice(11, 15).map((ticks) => Number(ticks) / 100), Number(fields[7])];
}

const cpuNow = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/** Registers the hooks that append this file's figures to `log`. */
export function recordCpuByFile(log: string): void {
  if (!existsSync('/proc/self/stat')) return;
  const path = () => (expect.getState().testPath ?? '?').replace(/^.*?\/test\//, 'test/');
  let atStart: number[] = [];
  let wallAtStart = 0;
  let wallStartEpoch = 0;
  let testStart = 0;
  beforeAll(() => {
    atStart = cpuTimes();
    wallAtStart = performance.now();
    wallStartEpoch = Date.now();
  });
  beforeEach(() => {
    testStart = cpuNow();
  });
  afterEach((context) => {
    appendFileSync(log, `test\t${(cpuNow() - testStart).toFixed(3)}\t${path()} :: ${context.task.name}\n`);
  });
  afterAll(() => {
    const [user = 0, system = 0, childUser = 0, childSystem = 0, faults = 0] = cpuTimes().map(
      (t, i) => t - (atStart[i] ?? 0),
    );
    const wall = (performance.now() - wallAtStart) / 1000;
    const split = [user, system, childUser, childSystem].map((t) => t.toFixed(2)).join('\t');
    appendFileSync(
      log,
      `file\t${(user + system).toFixed(2)}\t${(childUser + childSystem).toFixed(2)}\t${wall.toFixed(2)}\t${path()}\n` +
        `split\t${split}\t${faults}\t${path()}\n` +
        `span\t${(wallStartEpoch / 1000).toFixed(2)}\t${(Date.now() / 1000).toFixed(2)}\t${process.pid}\t${path()}\n`,
    );
  });
}

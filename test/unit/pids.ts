/**
 * A pid no process has: counted down from Linux's largest pid (2^22 - 1, above most systems' pid_max) and checked
 * with signal 0, so a unit test gets a "dead owner" without spawning a process to reap.
 */
export function notRunningPid(): number {
  for (let pid = 4_194_303; pid > 1; pid--) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return pid;
    }
  }
  throw new Error('no free pid found');
}

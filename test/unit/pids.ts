import { readFileSync, readlinkSync } from 'node:fs';
import { uptime } from 'node:os';

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

/** Linux: the boot id this process's pid belongs to, as lock owners and ledger entries name it. */
export const thisBoot = (): string => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
/** Linux: the pid namespace this process's pid is numbered in. */
export const thisPidns = (): string => readlinkSync('/proc/self/ns/pid');
/** A boot id and a pid namespace of no process here: another boot, another container. */
export const OTHER_BOOT = '00000000-0000-4000-8000-000000000000';
export const OTHER_PIDNS = 'pid:[1]';
/** Epoch ms when this machine booted. */
// time-lint: system time (the boot time, which the OS dates, as process-owner.ts judges it)
export const bootedAt = (): number => Date.now() - uptime() * 1000;

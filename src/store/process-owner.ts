/**
 * Who wrote a lock or a ledger entry, and whether that process may still run: one judgement for every record that
 * names a process (lock-file.ts, ledger.ts). A record holds its writer's pid, host and time, and on Linux the boot and
 * pid namespace its pid is numbered in (docs/behaviour.md#config-file). When unsure, a writer counts as running:
 * judging a live run dead lets its lock or its task be taken, judging a dead one live only waits for its expiry.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname, uptime } from 'node:os';

export interface ProcessOwner {
  pid: number;
  host: string;
  /** Epoch ms when the record was written by this owner. */
  at: number;
  /** Linux: the boot the pid belongs to (`/proc/sys/kernel/random/boot_id`); absent elsewhere and from earlier versions. */
  boot?: string | undefined;
  /** Linux: the pid namespace the pid is numbered in (`pid:[4026531836]`; a container has its own); absent likewise. */
  pidns?: string | undefined;
}

type PidWorld = Pick<ProcessOwner, 'boot' | 'pidns'>;

/** Where this process's pid means something (Linux; neither elsewhere), read once, when first needed. */
let pidWorld: PidWorld | undefined;
function thisPidWorld(): PidWorld {
  if (pidWorld) return pidWorld;
  pidWorld = {};
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    if (boot !== '') pidWorld.boot = boot;
  } catch {
    // Not Linux, or no /proc: the pid is judged by host alone.
  }
  try {
    pidWorld.pidns = readlinkSync('/proc/self/ns/pid');
  } catch {
    // Likewise.
  }
  return pidWorld;
}

/** This process as a record's owner, written at `at`. */
export function thisOwner(at: number): ProcessOwner {
  return { pid: process.pid, host: hostname(), at, ...thisPidWorld() };
}

/** The owner fields of a record read back (a file of any version): `boot` and `pidns` only when they are strings. */
export function ownerFields(read: { boot?: unknown; pidns?: unknown }): PidWorld {
  const fields: PidWorld = {};
  if (typeof read.boot === 'string') fields.boot = read.boot;
  if (typeof read.pidns === 'string') fields.pidns = read.pidns;
  return fields;
}

/**
 * The process that wrote a ledger entry (store/ledger.ts: `ownedAt` is when). An entry of an earlier version names no
 * boot and no pid namespace: it is judged by host and pid, as it was. Without its time of writing, an entry naming
 * another boot counts as written since this boot (running): the safe side.
 */
export function entryOwner(entry: {
  pid: number;
  host: string;
  ownedAt?: number | undefined;
  boot?: string | undefined;
  pidns?: string | undefined;
}): ProcessOwner {
  return { pid: entry.pid, host: entry.host, at: entry.ownedAt ?? Infinity, ...ownerFields(entry) };
}

/**
 * Where an owner runs, as far as its pid can tell here: `here` (this host, this boot, this pid namespace, or an owner
 * that names neither: its pid is looked at), `rebooted` (this host, which booted since the record was written: no
 * process survives that), or where its pid cannot be looked at, so it counts as running whatever the pid: `host`
 * (another host), `twin` (another boot id, yet written since this boot: another machine of the same name),
 * `container` (another pid namespace of this boot: another container). Each is compared only when both know it.
 */
export type OwnerPlace = 'here' | 'rebooted' | 'host' | 'twin' | 'container';
export function placeOf(owner: ProcessOwner): OwnerPlace {
  if (owner.host !== hostname()) return 'host';
  const here = thisPidWorld();
  if (owner.boot !== undefined && here.boot !== undefined && owner.boot !== here.boot) {
    return owner.at < Date.now() - uptime() * 1000 ? 'rebooted' : 'twin';
  }
  if (owner.pidns !== undefined && here.pidns !== undefined && owner.pidns !== here.pidns) return 'container';
  return 'here';
}

/** True while `pid` runs on this host (another user's live process included); this process always runs. */
export function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // another user's live process
  }
}

/**
 * True when the owner has surely ended: its machine booted since, or it is where its pid can be looked at and
 * `runsHere` says it runs no more (by default its pid; a job's run, by the job's lock). Elsewhere it counts as running.
 */
export function ownerGone(owner: ProcessOwner, runsHere: () => boolean = () => isRunning(owner.pid)): boolean {
  const place = placeOf(owner);
  return place === 'rebooted' || (place === 'here' && !runsHere());
}

/** `on this machine`, `on build-7`, `on another machine named build-7`, `in another container of this machine (...)`. */
export function whereWords(owner: ProcessOwner, place = placeOf(owner)): string {
  switch (place) {
    case 'host':
      return `on ${owner.host}`;
    case 'twin':
      return `on another machine named ${owner.host}`;
    case 'container':
      return `in another container of this machine (pid namespace ${owner.pidns ?? ''})`;
    default:
      return 'on this machine';
  }
}

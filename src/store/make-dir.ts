/**
 * The one way taskctl makes a directory (config, cache, state, journal, spool, report, the start-up code cache):
 * docs/behaviour.md#files. Node's recursive `mkdirSync` loops forever, synchronously and deaf to signals, when a
 * component cannot be made and its parent looks fine (anything under /proc, a dangling symlink on some Node versions),
 * so this walks the path itself: one `lstat` and at most one plain `mkdir` per component, from the root down. The
 * walk is bounded by the number of components, and every failure comes back as a `DirectoryProblem` in plain words.
 *
 * No imports beyond Node built-ins: src/boot.ts uses it before the bundle loads.
 */
import { lstatSync, mkdirSync, statSync } from 'node:fs';
import { dirname, normalize, parse, sep } from 'node:path';

/** Why a directory cannot be made: `at` is the component that is wrong, `reason` says what is wrong with it. */
export interface DirectoryProblem {
  /** The directory asked for, as given (normalised). */
  readonly path: string;
  /** The component of `path` where the walk stopped: `path` itself or one of its parents. */
  readonly at: string;
  /** Plain words, e.g. `is a file, not a directory`; never an errno name. */
  readonly reason: string;
  /** The system's error code when a mkdir failed (ENOSPC, EROFS, EACCES): what the advice is chosen by (write-advice.ts). */
  readonly code?: string;
}

/** `/a/b is a file, not a directory`: the component and what is wrong with it, for a message after a colon. */
export function describeDirectoryProblem(problem: DirectoryProblem): string {
  return `${problem.at} ${problem.reason}`;
}

/**
 * Makes the directory `path` and its missing parents (each with `mode`, default 0o700, as the user's umask allows).
 * Returns undefined when `path` is a directory afterwards (already there, or made; a symlink to a directory counts),
 * else the problem: a component that is a file, a dangling or looping symlink, a file system that refuses new
 * directories (/proc, /sys), no permission, a read-only or full disk. Never throws, never calls a recursive mkdir,
 * and ends after at most a few system calls per component of `path`.
 */
export function makeDirectory(path: string, mode = 0o700): DirectoryProblem | undefined {
  // A relative path is walked from the working directory and named as given: messages show the user's own words.
  const target = normalize(path);
  // The usual case, the directory there already: one stat instead of the walk. A path that resolves to a directory
  // is one whose every component is a directory or a symlink to one, which is what the walk would find.
  if (isDirectory(target)) return undefined;
  const { root } = parse(target);
  const parts = target
    .slice(root.length)
    .split(sep)
    .filter((part) => part !== '' && part !== '.');
  let current = root;
  for (const part of parts) {
    current = current === root ? `${root}${part}` : `${current}${sep}${part}`;
    const problem = ensureComponent(current, mode);
    if (problem !== undefined)
      return {
        path: target,
        at: problem.at ?? current,
        reason: problem.reason,
        ...(problem.code === undefined ? {} : { code: problem.code }),
      };
  }
  return undefined;
}

/** `path` resolves to a directory (symlinks followed); false for anything else, missing or unreadable. */
function isDirectory(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false; // a loop, a component that is a file, no permission: the walk names the problem
  }
}

interface ComponentProblem {
  readonly at?: string;
  readonly reason: string;
  readonly code?: string;
}

/** One component: a directory already, or made now (a race with another run making it is fine). */
function ensureComponent(component: string, mode: number): ComponentProblem | undefined {
  const found = inspect(component);
  if (found !== 'missing') return found === 'directory' ? undefined : found;
  try {
    mkdirSync(component, { mode });
    return undefined;
  } catch (error) {
    const code = codeOf(error);
    // Another run made it between the lstat and the mkdir: look once more, never again.
    if (code === 'EEXIST') {
      const again = inspect(component);
      return again === 'directory'
        ? undefined
        : again === 'missing'
          ? { reason: 'keeps appearing and vanishing' }
          : again;
    }
    return { ...mkdirProblem(component, code), ...(code === '' ? {} : { code }) };
  }
}

/** What is at `component` now: a directory (or a symlink to one), nothing, or the problem with it. */
function inspect(component: string): 'directory' | 'missing' | ComponentProblem {
  try {
    // Missing is the usual answer in a new directory tree: told without an exception, which costs more than the call.
    const stats = lstatSync(component, { throwIfNoEntry: false });
    if (stats === undefined) return 'missing';
    if (stats.isDirectory()) return 'directory';
    if (!stats.isSymbolicLink())
      return { reason: stats.isFile() ? 'is a file, not a directory' : 'is not a directory' };
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT') return 'missing';
    return { reason: READ_REASONS[code] ?? 'cannot be read' };
  }
  try {
    return statSync(component).isDirectory()
      ? 'directory'
      : { reason: 'is a symlink to something that is not a directory' };
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT') return { reason: 'is a symlink to nothing (dangling)' };
    if (code === 'ELOOP') return { reason: 'is a symlink that loops' };
    return { reason: READ_REASONS[code] ?? 'is a symlink that cannot be followed' };
  }
}

function mkdirProblem(component: string, code: string): ComponentProblem {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return { at: dirname(component), reason: 'does not let this user make a directory in it (permission denied)' };
    case 'EROFS':
      return { reason: 'cannot be made: the file system is read-only' };
    case 'ENOSPC':
    case 'EDQUOT':
      return { reason: 'cannot be made: the disk is full' };
    case 'ENAMETOOLONG':
      return { reason: 'cannot be made: the name is too long' };
    default:
      // ENOENT with a parent that exists: a pseudo file system such as /proc or /sys, which has no new directories.
      return { reason: 'cannot be made: its file system does not allow new directories there (e.g. /proc, /sys)' };
  }
}

const READ_REASONS: Readonly<Record<string, string>> = {
  EACCES: 'cannot be looked into (permission denied)',
  EPERM: 'cannot be looked into (permission denied)',
  ENOTDIR: 'is under a file, not a directory',
  ELOOP: 'is a symlink that loops',
  ENAMETOOLONG: 'has a name that is too long',
};

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

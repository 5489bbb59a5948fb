/**
 * The config file (docs/behaviour.md#configuration-and-secrets): `$TASKCTL_CONFIG_DIR/config.json`, else `$XDG_CONFIG_HOME/taskctl/config.json`,
 * else `~/.config/taskctl/config.json`. File 0600, directory 0700: it holds API keys, so a looser existing file or
 * directory is tightened with a warning. Every change is a read-modify-write under `config.json.lock`, so concurrent
 * `config set` / `auth login` / `auth logout` never lose each other's updates, and an atomic replace, so a crash never
 * leaves half a file.
 */
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Env } from '../lib/env.js';
import { jsonSyntaxWords } from '../lib/json-locate.js';
import { systemErrorWords, UsageError } from '../errors.js';
import { userHome, variableDirectory, xdgHome } from './cache-dir.js';
import {
  changeModeIfAllowed,
  NotRegularFileError,
  readRegularFile,
  removeLeftoverTemps,
  STATE_FILE_MAX_BYTES,
  writeFileAtomicSync,
} from './atomic-file.js';
import { ConfigShapeSchema, ProfileSchema, type ConfigFile, type Profile } from './config-schema.js';
import { lockTimeoutError, waitForLock } from './lock-file.js';
import { describeDirectoryProblem, makeDirectory } from './make-dir.js';
import { writeAdvice } from './write-advice.js';

export const DEFAULT_PROFILE = 'default';
/** The next step of every config write that failed, after the cause's own (write-advice.ts). */
const ELSEWHERE = 'set TASKCTL_CONFIG_DIR to another directory';
/** How long a change waits for another process's change to finish (each holds the lock for milliseconds). */
const CONFIG_LOCK_TIMEOUT_MS = 10_000;
/** A lock older than this is left by a hung or killed process, even if its pid was reused. */
const CONFIG_LOCK_STALE_MS = 30_000;

export function configDirectory(env: Env, home: () => string = homedir): string {
  const named = variableDirectory(env.TASKCTL_CONFIG_DIR);
  if (named) return named;
  const xdg = xdgHome(env.XDG_CONFIG_HOME);
  if (xdg) return join(xdg, 'taskctl');
  const user = userHome(home);
  if (user === undefined) {
    throw new UsageError(
      'cannot find your home directory for the config file (HOME is unset, empty or relative, and the account names none)',
      'Set HOME, or TASKCTL_CONFIG_DIR to the directory the config file should live in.',
    );
  }
  return join(user, '.config', 'taskctl');
}

export function configFilePath(env: Env): string {
  return join(configDirectory(env), 'config.json');
}

export interface ConfigStore {
  readonly path: string;
  profile: (name: string) => Profile;
  profileNames: () => string[];
  set: <K extends keyof Profile>(profile: string, key: K, value: NonNullable<Profile[K]>) => Promise<void>;
  /** Sets several values of one profile in one change of the file: all of them are written, or none. */
  update: (profile: string, values: Partial<Profile>) => Promise<void>;
  unset: (profile: string, key: keyof Profile) => Promise<void>;
}

/**
 * Tightens the directory through a descriptor (a path could be swapped for a link between a stat and a chmod). One that
 * cannot be changed (a read-only file system, another user's directory) is left as it is, silently: nothing new is
 * written where nothing can be, and the file's own mode (readConfig) is what guards the keys.
 */
function tightenDirectory(dir: string, warn: (message: string) => void): void {
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch {
    return; // does not exist yet (created 0700 on first write), or not a directory (the write names the problem)
  }
  try {
    const mode = fstatSync(fd).mode & 0o777;
    if ((mode & 0o077) === 0) return;
    if (changeModeIfAllowed(fd, 0o700) !== undefined) return;
    warn(`config directory ${dir} was accessible to others (${mode.toString(8)}); tightened to 700`);
  } finally {
    closeSync(fd);
  }
}

function readConfig(path: string, warn?: (message: string) => void): ConfigFile {
  const text = readRegularFile(path, {
    what: 'config file',
    tightenTo: 0o600,
    onTightened: (mode) => warn?.(`config file ${path} was readable by others (${mode.toString(8)}); tightened to 600`),
    onNotTightened: (mode, error) =>
      warn?.(
        `config file ${path} is readable by others (${mode.toString(8)}) and cannot be tightened to 600 (${systemErrorWords(error)})`,
      ),
  });
  if (text === undefined || text.trim() === '') return { profiles: new Map() };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(
      `the config file ${path} is not valid JSON (${jsonSyntaxWords(text)})`,
      'Fix the file in an editor, or move it away and run `taskctl auth login` again.',
    );
  }
  const invalid = (at: readonly PropertyKey[], message: string | undefined) =>
    new UsageError(
      `the config file ${path} is invalid at ${at.map(String).join('.') || '(root)'}: ${message ?? 'unknown problem'}`,
      // Never `config set`/`unset`: they read the file first, and refuse it the same way.
      'Fix the file in an editor, or move it away and run `taskctl auth login` again.',
    );
  const shape = ConfigShapeSchema.safeParse(json);
  if (!shape.success) throw invalid(shape.error.issues[0]?.path ?? [], shape.error.issues[0]?.message);
  // The parsed JSON's own keys (a `__proto__` key included), not the schema's copy of them.
  const profiles = new Map<string, Profile>();
  for (const [name, value] of Object.entries((json as { profiles?: object }).profiles ?? {})) {
    const parsed = ProfileSchema.safeParse(value);
    const issue = parsed.error?.issues[0];
    if (!parsed.success) throw invalid(['profiles', name, ...(issue?.path ?? [])], issue?.message);
    profiles.set(name, parsed.data);
  }
  return { profiles };
}

/** Applies `change` to the file's current content under the lock, writes it atomically, and returns what was written. */
function updateConfig(
  dir: string,
  path: string,
  lockTimeoutMs: number,
  change: (data: ConfigFile) => ConfigFile,
): ConfigFile {
  const problem = makeDirectory(dir);
  if (problem !== undefined)
    throw new UsageError(
      `cannot make the config directory ${dir}: ${describeDirectoryProblem(problem)}`,
      writeAdvice(problem, ELSEWHERE, 'Set TASKCTL_CONFIG_DIR to a writable directory.'),
    );
  const lockPath = `${path}.lock`;
  let lock;
  try {
    lock = waitForLock(lockPath, lockTimeoutMs, { staleAfterMs: CONFIG_LOCK_STALE_MS });
  } catch (error) {
    if (error instanceof NotRegularFileError) throw error; // a FIFO, directory… at the lock's path: named, with what to do
    throw new UsageError(
      `cannot lock the config file (${lockPath}): ${systemErrorWords(error)}`,
      writeAdvice(error, ELSEWHERE),
    );
  }
  if (!('release' in lock))
    throw lockTimeoutError('config file', path, lock.heldBy, {
      timeoutMs: lockTimeoutMs,
      staleAfterMs: CONFIG_LOCK_STALE_MS,
    });
  try {
    removeLeftoverTemps(path);
    const data = change(readConfig(path));
    // Object.fromEntries defines each name as an own key: a profile named `__proto__` is written as one.
    const text = JSON.stringify({ profiles: Object.fromEntries(data.profiles) }, undefined, '\t');
    writeFileAtomicSync(path, `${text}\n`, 0o600, { maxBytes: STATE_FILE_MAX_BYTES });
    return data;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `cannot write the config file ${path}: ${systemErrorWords(error)}`,
      writeAdvice(error, ELSEWHERE),
    );
  } finally {
    lock.release();
  }
}

function withValues(data: ConfigFile, profile: string, values: Partial<Profile>): ConfigFile {
  const profiles = new Map(data.profiles);
  return { profiles: profiles.set(profile, { ...data.profiles.get(profile), ...values }) };
}

function withoutValue(data: ConfigFile, profile: string, key: keyof Profile): ConfigFile {
  const current: Profile = Object.fromEntries(
    Object.entries(data.profiles.get(profile) ?? {}).filter(([name]) => name !== key),
  );
  const profiles = new Map(data.profiles);
  if (Object.keys(current).length > 0) profiles.set(profile, current);
  else profiles.delete(profile);
  return { profiles };
}

// Reads are a plain JSON parse; `conf` is not used: it has no lock, follows symlinks when it chmods, and loads ajv.
export function openConfig(
  env: Env,
  warn: (message: string) => void,
  lockTimeoutMs = CONFIG_LOCK_TIMEOUT_MS,
): Promise<ConfigStore> {
  const dir = configDirectory(env);
  const path = join(dir, 'config.json');
  // A throw inside the executor rejects the promise: the work itself is synchronous (see lock-file.ts).
  return new Promise((resolve) => {
    tightenDirectory(dir, warn);
    let data = readConfig(path, warn);
    resolve({
      path,
      profile: (name) => data.profiles.get(name) ?? {},
      profileNames: () => [...data.profiles.keys()],
      set: (profile, key, value) =>
        settled(() => {
          data = updateConfig(dir, path, lockTimeoutMs, (current) => withValues(current, profile, { [key]: value }));
        }),
      update: (profile, values) =>
        settled(() => {
          data = updateConfig(dir, path, lockTimeoutMs, (current) => withValues(current, profile, values));
        }),
      unset: (profile, key) =>
        settled(() => {
          data = updateConfig(dir, path, lockTimeoutMs, (current) => withoutValue(current, profile, key));
        }),
    });
  });
}

/** The store's work is synchronous (see lock-file.ts); its API stays promise-shaped for its callers. */
function settled(work: () => void): Promise<void> {
  return new Promise((resolve) => {
    work();
    resolve();
  });
}

/**
 * The config file (DESIGN.md section 4) over `conf`: `$TASKCTL_CONFIG_DIR/config.json`, else
 * `$XDG_CONFIG_HOME/taskctl/config.json`, else `~/.config/taskctl/config.json`. File 0600, directory 0700:
 * it holds API keys, so a looser existing file or directory is tightened with a warning.
 */
import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Env } from '../output/io.js';
import { UsageError } from '../errors.js';
import { ConfigFileSchema, type ConfigFile, type Profile } from './config-schema.js';

export const DEFAULT_PROFILE = 'default';

export function configDirectory(env: Env, home: string = homedir()): string {
  if (env.TASKCTL_CONFIG_DIR) return env.TASKCTL_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'taskctl');
  return join(home, '.config', 'taskctl');
}

export function configFilePath(env: Env): string {
  return join(configDirectory(env), 'config.json');
}

export interface ConfigStore {
  readonly path: string;
  profile(name: string): Profile;
  profileNames(): string[];
  set<K extends keyof Profile>(profile: string, key: K, value: NonNullable<Profile[K]>): Promise<void>;
  unset(profile: string, key: keyof Profile): Promise<void>;
}

/** Tightens a path's permission bits to `mode` when group or others have any; returns the old mode if it changed. */
function tighten(path: string, mode: number): number | undefined {
  let current: number;
  try {
    current = statSync(path).mode & 0o777;
  } catch {
    return undefined; // does not exist yet
  }
  if ((current & 0o077) === 0) return undefined;
  chmodSync(path, mode);
  return current;
}

function readConfigJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new UsageError(
      `cannot read the config file ${path}: ${(error as Error).message}`,
      'Check its permissions, or set TASKCTL_CONFIG_DIR.',
    );
  }
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `the config file ${path} is not valid JSON (${(error as Error).message})`,
      'Fix the file, or delete it and run `taskctl auth login` again.',
    );
  }
}

export async function openConfig(env: Env, warn: (message: string) => void): Promise<ConfigStore> {
  const dir = configDirectory(env);
  const path = join(dir, 'config.json');
  const oldDirMode = tighten(dir, 0o700);
  if (oldDirMode !== undefined)
    warn(`config directory ${dir} was accessible to others (${oldDirMode.toString(8)}); tightened to 700`);
  const oldFileMode = tighten(path, 0o600);
  if (oldFileMode !== undefined)
    warn(`config file ${path} was readable by others (${oldFileMode.toString(8)}); tightened to 600`);

  const parsed = ConfigFileSchema.safeParse(readConfigJson(path));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(
      `the config file ${path} is invalid at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'unknown problem'}`,
      'Fix it with `taskctl config set`/`unset`, or edit or delete the file.',
    );
  }
  let data: ConfigFile = parsed.data;
  // Reads are a plain JSON parse (start-up speed: `conf` pulls in ajv); writes go through `conf` for atomic, 0600 files.
  const save = async () => {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new UsageError(
        `cannot create the config directory ${dir}: ${(error as Error).message}`,
        'Set TASKCTL_CONFIG_DIR to a writable directory.',
      );
    }
    const { default: Conf } = await import('conf');
    const conf = new Conf<ConfigFile>({
      cwd: dir,
      configName: 'config',
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false,
    });
    conf.store = data;
  };
  return {
    path,
    profile: (name) => data.profiles[name] ?? {},
    profileNames: () => Object.keys(data.profiles),
    async set(profile, key, value) {
      data = { ...data, profiles: { ...data.profiles, [profile]: { ...data.profiles[profile], [key]: value } } };
      await save();
    },
    async unset(profile, key) {
      const current = { ...data.profiles[profile] };
      delete current[key];
      const profiles = { ...data.profiles };
      if (Object.keys(current).length === 0) delete profiles[profile];
      else profiles[profile] = current;
      data = { ...data, profiles };
      await save();
    },
  };
}

/**
 * Where each setting comes from: flag > environment > profile > default (docs/behaviour.md#configuration-and-secrets). Pure: the caller reads
 * the config file and the key file; this only decides.
 */
import type { Env } from '../output/io.js';
import type { Profile } from '../store/config-schema.js';
import { DEFAULT_PROFILE } from '../store/config-file.js';
import { UsageError } from '../errors.js';
import { shellWord } from '../lib/shell-word.js';

type SettingSource = 'flag' | 'env' | 'profile' | 'default' | 'sandbox';

export interface Resolved<T> {
  value: T;
  source: SettingSource;
  /** Human detail for `auth status` / `config list`: `--api-key-file ./key`, `TASKCTL_API_KEY`, `profile "work"`. */
  origin: string;
}

export interface SettingFlags {
  profile?: string | undefined;
  baseUrl?: string | undefined;
  /** The key read from `--api-key-file`, with the path for messages. */
  apiKeyFromFile?: { key: string; path: string } | undefined;
  output?: string | undefined;
  requestTimeout?: string | undefined;
}

export interface Settings {
  profile: Resolved<string>;
  baseUrl: Resolved<string> | undefined;
  apiKey: Resolved<string> | undefined;
  output: Resolved<string> | undefined;
  confirmAbove: Resolved<number>;
  authScheme: Resolved<'x-api-key' | 'bearer'>;
  requestTimeout: Resolved<string> | undefined;
  /** The profile's `outage-tolerance` (wait/watch's `--outage-tolerance` flag wins over it). */
  outageTolerance: Resolved<string> | undefined;
  /** The profile's `job-retention`: how long a finished job's journal stays in the state directory. */
  jobRetention: Resolved<string> | undefined;
}

const DEFAULT_CONFIRM_ABOVE = 1000;

export function resolveProfileName(flags: SettingFlags, env: Env): Resolved<string> {
  if (flags.profile) return { value: flags.profile, source: 'flag', origin: '--profile' };
  if (env.TASKCTL_PROFILE) return { value: env.TASKCTL_PROFILE, source: 'env', origin: 'TASKCTL_PROFILE' };
  return { value: DEFAULT_PROFILE, source: 'default', origin: 'default' };
}

/** Commands whose point is to create the profile they name (`taskctl --profile new auth login`): a new name is fine. */
const PROFILE_CREATING_COMMANDS = new Set(['auth login', 'config set']);

/**
 * A named profile must exist (exit 2 naming those that do), whatever the environment supplies: a typo in `--profile`
 * must not silently run against another account. The default profile needs no entry; `commandPath` is `auth login`...
 */
export function checkProfileExists(profile: Resolved<string>, existing: readonly string[], commandPath: string): void {
  if (profile.source === 'default' || profile.value === DEFAULT_PROFILE || existing.includes(profile.value)) return;
  if (PROFILE_CREATING_COMMANDS.has(commandPath)) return;
  const what = `profile "${profile.value}" (from ${profile.origin}) does not exist`;
  // The login that creates it, whole: a login needs the service URL (core/auth.ts), and a profile it names.
  const create = `\`taskctl --profile ${shellWord(profile.value)} auth login --base-url URL\``;
  if (existing.length === 0) throw new UsageError(`${what}: no profiles yet`, `Create it: ${create}.`);
  throw new UsageError(
    `${what}; the profiles are: ${[...existing].sort().join(', ')}`,
    `Pick one of them, or create it: ${create}.`,
  );
}

function pick<T>(
  candidates: Array<[value: T | undefined, source: SettingSource, origin: string]>,
): Resolved<T> | undefined {
  for (const [value, source, origin] of candidates) {
    if (value !== undefined && value !== '') return { value, source, origin };
  }
  return undefined;
}

export function resolveSettings(
  flags: SettingFlags,
  env: Env,
  profile: Profile,
  profileName: Resolved<string>,
): Settings {
  const fromProfile = `profile "${profileName.value}"`;
  return {
    profile: profileName,
    baseUrl: pick([
      [flags.baseUrl, 'flag', '--base-url'],
      [env.TASKCTL_BASE_URL, 'env', 'TASKCTL_BASE_URL'],
      [profile['base-url'], 'profile', fromProfile],
    ]),
    // Trimmed: a pasted CI secret often ends in a newline, and the printer must scrub the key as it is sent.
    apiKey: pick([
      [flags.apiKeyFromFile?.key.trim(), 'flag', `--api-key-file ${flags.apiKeyFromFile?.path ?? ''}`.trim()],
      [env.TASKCTL_API_KEY?.trim(), 'env', 'TASKCTL_API_KEY'],
      [profile['api-key']?.trim(), 'profile', fromProfile],
    ]),
    output: pick([
      [flags.output, 'flag', '--output'],
      [env.TASKCTL_OUTPUT, 'env', 'TASKCTL_OUTPUT'],
      [profile.output, 'profile', fromProfile],
    ]),
    confirmAbove: pick<number>([[profile['confirm-above'], 'profile', fromProfile]]) ?? {
      value: DEFAULT_CONFIRM_ABOVE,
      source: 'default',
      origin: 'default',
    },
    authScheme: pick<'x-api-key' | 'bearer'>([[profile['auth-scheme'], 'profile', fromProfile]]) ?? {
      value: 'x-api-key',
      source: 'default',
      origin: 'default',
    },
    requestTimeout: pick([
      [flags.requestTimeout, 'flag', '--request-timeout'],
      [profile['request-timeout'], 'profile', fromProfile],
    ]),
    outageTolerance: pick([[profile['outage-tolerance'], 'profile', fromProfile]]),
    jobRetention: pick([[profile['job-retention'], 'profile', fromProfile]]),
  };
}

/**
 * The hint for a refused key (HTTP 401), naming where the key came from: "set TASKCTL_API_KEY" is the wrong advice when
 * TASKCTL_API_KEY is the bad key. The API client passes it to its AuthError (api/api-errors.ts keeps a general default).
 */
export function keyRefusedHint(apiKey: Resolved<string> | undefined, profile: Resolved<string>): string {
  switch (apiKey?.source) {
    case 'env':
      return `The key from ${apiKey.origin} was refused: check or unset it (it takes precedence over the key \`taskctl auth login\` stores).`;
    case 'flag':
      return `The key in ${apiKey.origin} was refused: check its first line.`;
    case 'profile': {
      const login =
        profile.value === DEFAULT_PROFILE ? 'taskctl auth login' : `taskctl --profile ${profile.value} auth login`;
      return `The key stored in profile "${profile.value}" was refused (regenerated in the dashboard?): run \`${login}\` with the current one.`;
    }
    case 'sandbox':
      return 'The --sandbox key was refused: the sandbox and taskctl disagree; please report it.';
    case 'default':
    case undefined:
      return 'Run `taskctl auth login`, or set TASKCTL_API_KEY.';
  }
}

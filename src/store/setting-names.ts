/** The settings' names and descriptions, without zod: `--help` and `config` registration need them, not the schemas. */
export const OUTPUT_FORMATS = ['table', 'tsv', 'csv', 'json', 'ndjson'] as const;
export const AUTH_SCHEMES = ['x-api-key', 'bearer'] as const;

/** Settings a user can `config set` (validated by SETTING_SCHEMAS in config-schema.ts); the API key is written only by `auth login`. */
export const SETTING_NAMES = [
  'base-url',
  'output',
  'confirm-above',
  'auth-scheme',
  'request-timeout',
  'outage-tolerance',
  'job-retention',
] as const;
export type SettingName = (typeof SETTING_NAMES)[number];

/** What `config get` (and `config list`) read: every setting, the profile in use and the key (masked). */
export const READABLE_NAMES = ['profile', ...SETTING_NAMES, 'api-key'] as const;

export const SETTING_DESCRIPTIONS: Record<SettingName, string> = {
  'base-url': 'API base URL (https, or http on loopback); /api/v1 is appended when it has no path',
  output: `default output format: ${OUTPUT_FORMATS.join(', ')}`,
  'confirm-above': 'ask before creating a task whose estimate is at least this many coins (default: 1000)',
  'auth-scheme': 'how the key is sent: x-api-key (default) or bearer',
  'request-timeout':
    'budget of one request, every attempt included, such as 20s (default: 35s; a create: 60s per attempt)',
  'outage-tolerance':
    'how long wait/watch go on without a good answer before exit 8 (7 after 429s), such as 5m (default: 2m)',
  'job-retention':
    "how long a finished job's journal is kept in the state directory before it is removed, such as 48h (default: 720h, 30 days)",
};

/** The config file's shape and the settings users may write with `taskctl config set`. */
import { z } from 'zod';

export const OUTPUT_FORMATS = ['table', 'tsv', 'csv', 'json', 'ndjson'] as const;
export const AUTH_SCHEMES = ['x-api-key', 'bearer'] as const;

/** Settings a user can `config set`, each validated; the API key is written only by `auth login`. */
export const SETTING_SCHEMAS = {
  'base-url': z.string().min(1),
  output: z.enum(OUTPUT_FORMATS),
  'confirm-above': z.coerce.number().int().nonnegative(),
  'auth-scheme': z.enum(AUTH_SCHEMES),
  'request-timeout': z.string().min(1),
} as const;
export type SettingName = keyof typeof SETTING_SCHEMAS;
export const SETTING_NAMES = Object.keys(SETTING_SCHEMAS) as SettingName[];

export const SETTING_DESCRIPTIONS: Record<SettingName, string> = {
  'base-url': 'API base URL (https, or http on loopback); /api/v1 is appended when it has no path',
  output: `default output format: ${OUTPUT_FORMATS.join(', ')}`,
  'confirm-above': 'ask before creating a task whose estimate is at least this many coins (default 1000)',
  'auth-scheme': 'how the key is sent: x-api-key (default) or bearer',
  'request-timeout': 'per-request timeout such as 30s (default: 30s for GET, 60s for POST)',
};

export const ProfileSchema = z.object({
  'api-key': z.string().min(1).optional(),
  'base-url': z.string().optional(),
  output: z.enum(OUTPUT_FORMATS).optional(),
  'confirm-above': z.number().int().nonnegative().optional(),
  'auth-scheme': z.enum(AUTH_SCHEMES).optional(),
  'request-timeout': z.string().optional(),
});
export type Profile = z.infer<typeof ProfileSchema>;

export const ConfigFileSchema = z.object({
  profiles: z.record(z.string(), ProfileSchema).default({}),
});
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/** The config file's shape and the settings users may write with `taskctl config set`. */
import * as z from '../lib/zod.js';
import { AUTH_SCHEMES, OUTPUT_FORMATS, type SettingName } from './setting-names.js';

export {
  AUTH_SCHEMES,
  OUTPUT_FORMATS,
  SETTING_DESCRIPTIONS,
  SETTING_NAMES,
  type SettingName,
} from './setting-names.js';

// Schemas are built on first use (`z.lazy` parses exactly as the schema it wraps): every command loads this module, and
// without a config file none of them is needed (building them cost ~3 ms of start-up).

/** How each `config set` value is validated. */
export const SETTING_SCHEMAS = {
  'base-url': z.lazy(() => z.string().min(1)),
  output: z.lazy(() => z.enum(OUTPUT_FORMATS)),
  // Digits only, checked by core/config.ts (lib/whole-number.ts) as a flag's number is.
  'confirm-above': z.lazy(() => z.string()),
  'auth-scheme': z.lazy(() => z.enum(AUTH_SCHEMES)),
  'request-timeout': z.lazy(() => z.string().min(1)),
  'outage-tolerance': z.lazy(() => z.string().min(1)),
  'job-retention': z.lazy(() => z.string().min(1)),
} as const satisfies Record<SettingName, z.ZodType>;

const profileSchema = () =>
  z.object({
    'api-key': z.string().min(1).optional(),
    'base-url': z.string().optional(),
    output: z.enum(OUTPUT_FORMATS).optional(),
    'confirm-above': z.number().int().nonnegative().optional(),
    'auth-scheme': z.enum(AUTH_SCHEMES).optional(),
    'request-timeout': z.string().optional(),
    'outage-tolerance': z.string().optional(),
    'job-retention': z.string().optional(),
  });
export type Profile = z.infer<ReturnType<typeof profileSchema>>;

/** One profile's settings: validated alone, each profile under its own name (see `ConfigShapeSchema`). */
export const ProfileSchema = z.lazy(profileSchema);

/**
 * The file's shape around the profiles: an object whose `profiles` is an object. The profiles themselves are taken from
 * the parsed JSON's own keys and validated one by one, never rebuilt through a plain object, where `__proto__` would
 * set the prototype instead of naming a profile.
 */
export const ConfigShapeSchema = z.lazy(() => z.object({ profiles: z.record(z.string(), z.unknown()).optional() }));

/** The file as read: profiles by name, in a Map so that no name (`__proto__`, `constructor`) is special. */
export interface ConfigFile {
  profiles: Map<string, Profile>;
}

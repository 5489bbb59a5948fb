/** `taskctl config get/set/unset/list/path`: a profile's settings read (effective, with their source) and written. */
import type { Output, Runtime, Service, Store } from './capabilities.js';
import { UsageError } from '../errors.js';
import { READABLE_NAMES, SETTING_DESCRIPTIONS, SETTING_NAMES, type SettingName } from '../store/setting-names.js';
import { formatDuration, parsePositiveDuration } from '../lib/duration.js';
import type { Resolved, Settings } from './settings.js';
import { POST_TIMEOUT_MS, REQUEST_BUDGET_MS } from '../api/constants.js';
import { DEFAULT_OUTAGE_TOLERANCE_MS } from './follow/outage.js';
import { DEFAULT_JOB_RETENTION_MS } from './job/registry.js';
import { maskKey } from '../lib/redact.js';
import { NOT_WHOLE_NUMBER, wholeNumber } from '../lib/whole-number.js';
import { idsOnly } from './quiet.js';

function settingName(key: string): SettingName {
  if (key === 'api-key') {
    throw new UsageError(
      'the API key is not set with `config set`',
      'Use `taskctl auth login` (it verifies the key before saving it).',
    );
  }
  if (!(SETTING_NAMES as readonly string[]).includes(key)) {
    throw new UsageError(`unknown setting "${key}"`, `Settings: ${SETTING_NAMES.join(', ')}.`);
  }
  return key as SettingName;
}

type ListedKey = (typeof READABLE_NAMES)[number];

/**
 * One row of `config list`: the effective value as `get` prints it, its kind of source and the detail (`--output`,
 * `profile "work"`); a default has no detail to add (null, `-` in a table: never "default default"). The table alone
 * says more to people: `listed`, a default's value in words; `unset`, a setting without any value.
 */
interface SettingRow {
  key: ListedKey;
  value: string | number | null;
  source: Resolved<unknown>['source'];
  origin: string | null;
  listed?: string;
  unset?: true;
}

const DEFAULT = { source: 'default', origin: null } as const;

/**
 * The values taskctl uses when nothing sets them (the numbers come from where they are used): `value` as `get` prints
 * it, one `config set` takes (the output: the format of this run, table on a terminal, else tsv); `listed` as `list`
 * says it where there is more to say.
 */
function defaults(format: string): Partial<Record<ListedKey, { value: string; listed?: string }>> {
  const budget = formatDuration(REQUEST_BUDGET_MS);
  return {
    output: { value: format, listed: 'table on a terminal, tsv otherwise' },
    'request-timeout': { value: budget, listed: `${budget} (create: ${formatDuration(POST_TIMEOUT_MS)} per attempt)` },
    'outage-tolerance': { value: formatDuration(DEFAULT_OUTAGE_TOLERANCE_MS) },
    'job-retention': { value: formatDuration(DEFAULT_JOB_RETENTION_MS) },
  };
}

function effective(settings: Settings): Record<ListedKey, Resolved<string | number> | undefined> {
  return {
    profile: settings.profile,
    'base-url': settings.baseUrl,
    output: settings.output,
    'confirm-above': settings.confirmAbove,
    'auth-scheme': settings.authScheme,
    'request-timeout': settings.requestTimeout,
    'outage-tolerance': settings.outageTolerance,
    'job-retention': settings.jobRetention,
    'api-key': settings.apiKey ? { ...settings.apiKey, value: maskKey(settings.apiKey.value) } : undefined,
  };
}

/** Every setting with a value: set ones as resolved, the others their default (null when there is none, e.g. the key). */
function settingRows(settings: Settings, format: string): SettingRow[] {
  const fallback = defaults(format);
  return Object.entries(effective(settings)).map(([name, resolved]) => {
    const key = name as ListedKey;
    if (resolved) {
      const origin = resolved.source === 'default' ? null : resolved.origin;
      return { key, value: resolved.value, source: resolved.source, origin };
    }
    const value = fallback[key];
    if (value === undefined) return { key, value: null, ...DEFAULT, unset: true };
    return { key, value: value.value, ...DEFAULT, ...(value.listed === undefined ? {} : { listed: value.listed }) };
  });
}

/** Prints the effective value of a setting, the profile or the (masked) key; a setting nothing sets, its default. */
export async function runConfigGet(ctx: Output & Service, key: string): Promise<void> {
  const name = key === 'api-key' || key === 'profile' ? key : settingName(key);
  const value = effective(await ctx.settings())[name]?.value ?? defaults(ctx.printer.format)[name]?.value;
  ctx.printer.line(value === undefined ? '' : String(value));
}

/** A number of coins by the rule of the flags (`--max-cost`), refused in their words. */
function coins(raw: string): number {
  const n = wholeNumber(raw);
  if (n === undefined)
    throw new UsageError(`confirm-above "${raw}": ${NOT_WHOLE_NUMBER}`, SETTING_DESCRIPTIONS['confirm-above']);
  return n;
}

export async function runConfigSet(ctx: Output & Store & Service, key: string, raw: string): Promise<void> {
  const name = settingName(key);
  const { SETTING_SCHEMAS } = await import('../store/config-schema.js'); // zod: loaded when a value is set, not for --help
  const parsed = SETTING_SCHEMAS[name].safeParse(raw);
  if (!parsed.success) {
    throw new UsageError(`invalid value "${raw}" for ${name}`, SETTING_DESCRIPTIONS[name]);
  }
  let value: string | number = parsed.data;
  if (name === 'confirm-above') value = coins(raw);
  if (name === 'base-url') {
    const { normaliseBaseUrl } = await import('../api/base-url.js');
    value = normaliseBaseUrl(String(value));
  }
  if (name === 'request-timeout' || name === 'outage-tolerance' || name === 'job-retention')
    parsePositiveDuration(String(value), name);
  const config = await ctx.config();
  const profile = (await ctx.settings()).profile.value;
  await config.set(profile, name, value);
  ctx.printer.success(`${name} = ${value} (profile "${profile}")`);
}

export async function runConfigUnset(ctx: Output & Store & Service, key: string): Promise<void> {
  const name = settingName(key);
  const config = await ctx.config();
  const profile = (await ctx.settings()).profile.value;
  await config.unset(profile, name);
  ctx.printer.success(`${name} unset (profile "${profile}")`);
}

/**
 * The machine formats (tsv, csv, json) carry each value as `get` prints it and `set` takes it, empty (null) where
 * there is none, as `auth status` keeps its machine types (docs/behaviour.md#types-kept); the table, words for people.
 */
export async function runConfigList(ctx: Output & Service): Promise<void> {
  const rows = settingRows(await ctx.settings(), ctx.printer.format);
  // -q alone: the keys something sets (a flag, the environment, the profile), one a line; no default.
  if (idsOnly(ctx.globals)) {
    for (const row of rows) if (row.source !== 'default') ctx.printer.line(row.key);
    return;
  }
  const json = rows.map(({ key, value, source, origin }) => ({ key, value, source, origin }));
  await ctx.printer.list(
    rows,
    [
      { header: 'KEY', key: 'key', value: (r) => r.key },
      {
        header: 'VALUE',
        key: 'value',
        value: (r) => r.value,
        display: (r) => r.listed ?? (r.value === null ? '' : String(r.value)),
      },
      { header: 'SOURCE', key: 'source', value: (r) => r.source },
      {
        header: 'FROM',
        key: 'origin',
        value: (r) => r.origin,
        display: (r) => (r.unset ? 'not set' : (r.origin ?? '-')),
      },
    ],
    json,
  );
}

export async function runConfigPath(ctx: Output & Runtime): Promise<void> {
  const { configFilePath } = await import('../store/config-file.js');
  ctx.printer.line(configFilePath(ctx.env));
}

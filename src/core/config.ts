/** `taskctl config get/set/unset/list/path`: a profile's settings read (effective, with their source) and written. */
import type { Output, Runtime, Service, Store } from './context.js';
import { UsageError } from '../errors.js';
import { SETTING_DESCRIPTIONS, SETTING_NAMES, type SettingName } from '../store/setting-names.js';
import { parsePositiveDuration } from '../lib/duration.js';
import type { Resolved, Settings } from './settings.js';
import { maskKey } from '../lib/redact.js';

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

function effective(settings: Settings): Record<SettingName | 'api-key', Resolved<string | number> | undefined> {
  return {
    'base-url': settings.baseUrl,
    output: settings.output,
    'confirm-above': settings.confirmAbove,
    'auth-scheme': settings.authScheme,
    'request-timeout': settings.requestTimeout,
    'outage-tolerance': settings.outageTolerance,
    'api-key': settings.apiKey ? { ...settings.apiKey, value: maskKey(settings.apiKey.value) } : undefined,
  };
}

export async function runConfigGet(ctx: Output & Service, key: string): Promise<void> {
  const name = key === 'api-key' ? 'api-key' : settingName(key);
  const value = effective(await ctx.settings())[name];
  ctx.printer.line(value === undefined ? '' : String(value.value));
}

export async function runConfigSet(ctx: Output & Store & Service, key: string, raw: string): Promise<void> {
  const name = settingName(key);
  const { SETTING_SCHEMAS } = await import('../store/config-schema.js'); // zod: loaded when a value is set, not for --help
  const parsed = SETTING_SCHEMAS[name].safeParse(raw);
  if (!parsed.success) {
    throw new UsageError(`invalid value "${raw}" for ${name}`, SETTING_DESCRIPTIONS[name]);
  }
  let value: string | number = parsed.data;
  if (name === 'base-url') {
    const { normaliseBaseUrl } = await import('../api/base-url.js');
    value = normaliseBaseUrl(String(value));
  }
  if (name === 'request-timeout' || name === 'outage-tolerance') parsePositiveDuration(String(value), name);
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

export async function runConfigList(ctx: Output & Service): Promise<void> {
  const settings = await ctx.settings();
  const rows = Object.entries(effective(settings)).map(([key, resolved]) => ({
    key,
    value: resolved === undefined ? '' : String(resolved.value),
    source: resolved?.origin ?? '',
  }));
  await ctx.printer.list(
    rows,
    [
      { header: 'KEY', key: 'key', value: (r) => r.key },
      { header: 'VALUE', key: 'value', value: (r) => r.value },
      { header: 'SOURCE', key: 'source', value: (r) => r.source },
    ],
    Object.fromEntries(rows.map((r) => [r.key, r.value || null])),
  );
}

export async function runConfigPath(ctx: Output & Runtime): Promise<void> {
  const { configFilePath } = await import('../store/config.js');
  ctx.printer.line(configFilePath(ctx.env));
}

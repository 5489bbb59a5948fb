import { describe, expect, it } from 'vitest';
import { resolveProfileName, resolveSettings } from '../../../src/core/settings.js';

const profileName = { value: 'default', source: 'default', origin: 'default' } as const;

describe('resolveSettings: flag > environment > profile > default', () => {
  const profile = { 'base-url': 'https://profile.example', 'api-key': 'sk_profile', output: 'csv' as const };

  it('takes the flag over the environment over the profile', () => {
    const settings = resolveSettings(
      { baseUrl: 'https://flag.example', apiKeyFromFile: { key: 'sk_file', path: 'k.txt' }, output: 'json' },
      { TASKCTL_BASE_URL: 'https://env.example', TASKCTL_API_KEY: 'sk_env', TASKCTL_OUTPUT: 'ndjson' },
      profile,
      profileName,
    );
    expect(settings.baseUrl).toEqual({ value: 'https://flag.example', source: 'flag', origin: '--base-url' });
    expect(settings.apiKey).toEqual({ value: 'sk_file', source: 'flag', origin: '--api-key-file k.txt' });
    expect(settings.output?.value).toBe('json');
  });

  it('takes the environment over the profile', () => {
    const settings = resolveSettings(
      {},
      { TASKCTL_BASE_URL: 'https://env.example', TASKCTL_API_KEY: 'sk_env' },
      profile,
      profileName,
    );
    expect(settings.baseUrl?.source).toBe('env');
    expect(settings.apiKey).toEqual({ value: 'sk_env', source: 'env', origin: 'TASKCTL_API_KEY' });
    expect(settings.output).toEqual({ value: 'csv', source: 'profile', origin: 'profile "default"' });
  });

  it('ignores empty environment values and falls back to defaults', () => {
    const settings = resolveSettings({}, { TASKCTL_API_KEY: '' }, {}, profileName);
    expect(settings.apiKey).toBeUndefined();
    expect(settings.baseUrl).toBeUndefined();
    expect(settings.confirmAbove).toEqual({ value: 1000, source: 'default', origin: 'default' });
    expect(settings.authScheme.value).toBe('x-api-key');
  });

  it('picks the profile from the flag, then TASKCTL_PROFILE, then default', () => {
    expect(resolveProfileName({ profile: 'a' }, { TASKCTL_PROFILE: 'b' }).value).toBe('a');
    expect(resolveProfileName({}, { TASKCTL_PROFILE: 'b' })).toEqual({
      value: 'b',
      source: 'env',
      origin: 'TASKCTL_PROFILE',
    });
    expect(resolveProfileName({}, {}).value).toBe('default');
  });
});

describe('parsePositiveDuration', () => {
  it('refuses a zero timeout, which undici would read as "never time out"', async () => {
    const { parsePositiveDuration } = await import('../../../src/lib/duration.js');
    expect(parsePositiveDuration('1.5s', 'request-timeout')).toBe(1500);
    expect(() => parsePositiveDuration('0', 'request-timeout')).toThrow(/must be above 0/);
    expect(() => parsePositiveDuration('0ms', 'request-timeout')).toThrow(/must be above 0/);
  });

  it('a value above 0 that rounds to 0 ms is named for what it is, not "must be above 0"', async () => {
    const { parsePositiveDuration } = await import('../../../src/lib/duration.js');
    expect(() => parsePositiveDuration('0.0001s', 'request-timeout')).toThrow(
      'request-timeout must be 1ms or more (got "0.0001s")',
    );
    const { positiveDuration } = await import('../../../src/commands/parsers.js');
    expect(() => positiveDuration('--outage-tolerance')('0.0001s')).toThrow(
      '--outage-tolerance must be 1ms or more, such as 30s or 5m.',
    );
    expect(() => positiveDuration('--outage-tolerance')('0')).toThrow('--outage-tolerance must be above 0');
  });
});

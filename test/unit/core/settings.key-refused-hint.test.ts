/**
 * The 401 hint names where the refused key came from: with TASKCTL_API_KEY=bad, "set TASKCTL_API_KEY" points
 * at the problem's own source. `keyRefusedHint` is the wording; the API error uses it once the client passes it on.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfileName, resolveSettings, keyRefusedHint } from '../../../src/core/settings.js';

function hintFor(flags: Parameters<typeof resolveSettings>[0], env: Record<string, string>, stored?: string) {
  const profileName = resolveProfileName(flags, env);
  const settings = resolveSettings(flags, env, stored ? { 'api-key': stored } : {}, profileName);
  return keyRefusedHint(settings.apiKey, settings.profile);
}

describe('keyRefusedHint', () => {
  it('a key from TASKCTL_API_KEY: check or unset it (it even shadows a stored key)', () => {
    expect(hintFor({}, { TASKCTL_API_KEY: 'bad' }, 'stored')).toBe(
      'The key from TASKCTL_API_KEY was refused: check or unset it (it takes precedence over the key `taskctl auth login` stores).',
    );
  });

  it('a key from --api-key-file: names the file', () => {
    expect(hintFor({ apiKeyFromFile: { key: 'bad', path: './key.txt' } }, {})).toBe(
      'The key in --api-key-file ./key.txt was refused: check its first line.',
    );
  });

  it('a stored key: log in again, to the profile it came from', () => {
    expect(hintFor({}, {}, 'old')).toBe(
      'The key stored in profile "default" was refused (regenerated in the dashboard?): run `taskctl auth login` with the current one.',
    );
    expect(hintFor({ profile: 'work' }, {}, 'old')).toMatch(/profile "work" .*`taskctl --profile work auth login`/);
  });

  it('never says "set TASKCTL_API_KEY" when that is where the key came from', () => {
    expect(hintFor({}, { TASKCTL_API_KEY: 'bad' })).not.toMatch(/set TASKCTL_API_KEY/);
  });

  it('no resolved key (should not happen after a 401): the general advice', () => {
    expect(keyRefusedHint(undefined, { value: 'default', source: 'default', origin: 'default' })).toBe(
      'Run `taskctl auth login`, or set TASKCTL_API_KEY.',
    );
  });
});

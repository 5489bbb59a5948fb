import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configDirectory, openConfig } from '../../../src/core/config.js';
import { UsageError } from '../../../src/errors.js';

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'taskctl-config-'));
  dir = join(root, 'cfg');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

describe('configDirectory', () => {
  it('prefers TASKCTL_CONFIG_DIR, then XDG_CONFIG_HOME, then ~/.config', () => {
    expect(configDirectory({ TASKCTL_CONFIG_DIR: '/a', XDG_CONFIG_HOME: '/b' }, '/home/u')).toBe('/a');
    expect(configDirectory({ XDG_CONFIG_HOME: '/b' }, '/home/u')).toBe('/b/taskctl');
    expect(configDirectory({}, '/home/u')).toBe('/home/u/.config/taskctl');
  });
});

describe('openConfig', () => {
  it('reads nothing and creates nothing until a value is set; then writes 0600 in a 0700 directory', async () => {
    const config = await openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {});
    expect(config.profile('default')).toEqual({});
    expect(() => statSync(dir)).toThrow();
    await config.set('default', 'api-key', 'sk_test_1234');
    expect(mode(dir)).toBe(0o700);
    expect(mode(config.path)).toBe(0o600);
    expect(JSON.parse(readFileSync(config.path, 'utf8'))).toEqual({
      profiles: { default: { 'api-key': 'sk_test_1234' } },
    });
  });

  it('tightens a looser file and directory, with a warning for each', async () => {
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'config.json'), '{"profiles":{}}', { mode: 0o644 });
    chmodSync(join(dir, 'config.json'), 0o644);
    const warnings: string[] = [];
    await openConfig({ TASKCTL_CONFIG_DIR: dir }, (w) => warnings.push(w));
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'config.json'))).toBe(0o600);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatch(/readable by others \(644\); tightened to 600/);
  });

  it('keeps profiles apart and removes empty ones on unset', async () => {
    const config = await openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {});
    await config.set('work', 'output', 'json');
    await config.set('default', 'confirm-above', 50);
    expect(config.profile('work')).toEqual({ output: 'json' });
    await config.unset('work', 'output');
    expect(config.profileNames()).toEqual(['default']);
    const reopened = await openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {});
    expect(reopened.profile('default')).toEqual({ 'confirm-above': 50 });
  });

  it('refuses invalid JSON and invalid values with a usage error naming the file', async () => {
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, 'config.json'), '{ nope', { mode: 0o600 });
    await expect(openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {})).rejects.toThrow(UsageError);
    writeFileSync(join(dir, 'config.json'), '{"profiles":{"default":{"output":"xml"}}}', { mode: 0o600 });
    await expect(openConfig({ TASKCTL_CONFIG_DIR: dir }, () => {})).rejects.toThrow(/profiles\.default\.output/);
  });
});

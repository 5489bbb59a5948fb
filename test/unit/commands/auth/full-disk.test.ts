/**
 * `auth login` whose key the service accepts, on a full disk under the config directory: exit 2 saying that nothing
 * was saved although the key is fine, with advice for a full disk (never the permissions).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { whileFailingFs, writesFailUnder } from '../../store/failing-fs.js';
import { mockApi, runTaskctl } from '../harness.js';

let home: string;
let configDir: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'taskctl-login-full-'));
  configDir = join(home, 'cfg');
  mkdirSync(configDir, { mode: 0o700 });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('auth login on a full disk', () => {
  it('says the key was accepted but nothing was saved, and advises space, not permissions (exit 2)', async () => {
    const api = mockApi();
    api.reply('GET', '/balance', 200, { success: true, data: { balance: 5, currency: 'coins' } });
    const key = 'sk_live_full_disk_0001';
    const result = await whileFailingFs(writesFailUnder(configDir), () =>
      runTaskctl(['auth', 'login', '--with-key'], {
        api,
        home,
        stdin: `${key}\n`,
        env: { TASKCTL_CONFIG_DIR: configDir, TASKCTL_API_KEY: undefined },
      }),
    );
    expect(result.code, result.stderr).toBe(2);
    expect(api.calls).toEqual(['GET /balance']);
    expect(result.stderr).toBe(
      `error: cannot lock the config file (${join(configDir, 'config.json.lock')}): the disk is full; ` +
        'the service accepted the key, but nothing was saved\n' +
        'Free space there, or set TASKCTL_CONFIG_DIR to another directory.\n',
    );
    expect(result.stderr).not.toContain(key);
    expect(readdirSync(configDir)).toEqual([]);
  });
});

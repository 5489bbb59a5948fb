/** `config set` on a full disk under the config directory: exit 2, advice for a full disk (never the permissions). */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { whileFailingFs, writesFailUnder } from '../../store/failing-fs.js';
import { runTaskctl } from '../run-in-process.js';

let home: string;
let configDir: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'taskctl-config-full-'));
  configDir = join(home, 'cfg');
  mkdirSync(configDir, { mode: 0o700 });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const set = () => runTaskctl(['config', 'set', 'confirm-above', '5'], { home, env: { TASKCTL_CONFIG_DIR: configDir } });

describe('config set where nothing can be written', () => {
  it('a full disk: free space there, or another directory (exit 2); nothing written', async () => {
    const result = await whileFailingFs(writesFailUnder(configDir), set);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toBe(
      `error: cannot lock the config file (${join(configDir, 'config.json.lock')}): the disk is full\n` +
        'Free space there, or set TASKCTL_CONFIG_DIR to another directory.\n',
    );
    expect(readdirSync(configDir)).toEqual([]);
  });

  it('a read-only file system: another directory, never the permissions (exit 2)', async () => {
    const result = await whileFailingFs(writesFailUnder(configDir, 'EROFS'), set);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(
      /: the file system is read-only\nIts file system is read-only: set TASKCTL_CONFIG_DIR to another directory\.\n$/,
    );
  });
});

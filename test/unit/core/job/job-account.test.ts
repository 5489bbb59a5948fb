/**
 * A job read as another account than the one that created it names what differs and, when a profile on this machine
 * holds the job's account, that profile: the way back, not "put the inputs back".
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { task } from '../../../hardening/helpers.js';
import { API_KEY, BASE_URL, mockApi, runTaskctl } from '../../commands/harness.js';
import { tempDir, writeJournal } from './fixture.js';

const ELSEWHERE = { TASKCTL_BASE_URL: 'https://elsewhere.test/api/v1', TASKCTL_API_KEY: 'sk_other_1234' };

/** A home whose config holds profile `p2`: the job's base URL and key. */
function homeWithProfile(): string {
  const home = tempDir();
  mkdirSync(join(home, 'config'), { mode: 0o700 });
  const profiles = { p2: { 'base-url': BASE_URL, 'api-key': API_KEY } };
  writeFileSync(join(home, 'config', 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
  return home;
}

describe('a job read as another account', () => {
  it('names the base URL that differs and the profile holding the job; that profile reads it', async () => {
    const home = homeWithProfile();
    const path = writeJournal({ items: 1, chunkSize: 1, tasks: [1] });
    const refused = await runTaskctl(['show', '--job', path], { env: ELSEWHERE, home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `belongs to another service: the base URL (https://elsewhere.test/api/v1; the job used ${BASE_URL}) differs`,
    );
    expect(refused.stderr.replace(/\n/g, ' ')).toContain(
      'The job was created as profile "p2": add --profile p2 with TASKCTL_BASE_URL and TASKCTL_API_KEY unset ' +
        '(they come before a profile).',
    );
    expect(refused.stderr).not.toMatch(/as they were/);
    const api = mockApi();
    const items = [{ target: 'a0.com', status: 'completed', data: { available: true }, error: null }];
    api.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { total_items: 1, items }) });
    const read = await runTaskctl(['--profile', 'p2', 'show', '--job', path, '-o', 'tsv'], {
      api,
      env: { TASKCTL_BASE_URL: undefined, TASKCTL_API_KEY: undefined },
      home,
    });
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toContain('a0.com');
  });

  it('another key on the same service: the account differs; without a profile for it, the key is asked for', async () => {
    const path = writeJournal({ items: 1, chunkSize: 1, tasks: [1], apiKey: 'sk_rotated_0001' });
    const refused = await runTaskctl(['show', '--job', path], { api: mockApi() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('belongs to another account: the account (API key) differs');
    expect(refused.stderr.replace(/\n/g, ' ')).toContain('Run it with the API key the job was created with');
  });

  it('resume as another service: names what differs and the resume command with the profile, nothing sent', async () => {
    const home = homeWithProfile();
    const path = writeJournal({ items: 1, chunkSize: 1, tasks: [1] });
    const api = mockApi();
    const refused = await runTaskctl(['resume', path], { api, env: ELSEWHERE, home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/cannot be continued as another service: the base URL .* differs; nothing was sent/);
    expect(refused.stderr.replace(/\n/g, ' ')).toMatch(
      /taskctl --profile p2 resume \S+job\S*\.jsonl with TASKCTL_BASE_URL/,
    );
    expect(refused.stderr).not.toMatch(/as they were/);
  });
});

/** With TASKCTL_API_KEY=bad, the 401 hint names TASKCTL_API_KEY as the source to check, in-process. */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../run-in-process.js';

describe('a refused key (401)', () => {
  it('names TASKCTL_API_KEY as where the key came from, never "set TASKCTL_API_KEY"', async () => {
    const api = mockApi();
    api.reply('GET', '/balance', 401, { success: false, error: { code: 'unauthorized', message: 'Invalid API key' } });
    const result = await runTaskctl(['balance'], { api });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('The key from TASKCTL_API_KEY was refused: check or unset it');
    expect(result.stderr).not.toMatch(/set TASKCTL_API_KEY/);
  });
});

/**
 * A wait whose key is refused part-way (the key rotated in the dashboard): exit 4 with the key's advice, and, as every
 * other way a wait stops, the line saying what was still running and how to go on once the key is fixed.
 */
import { describe, expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { mockApi, runTaskctl } from '../run-in-process.js';

const processing = (id: number) => ({ success: true, data: task(id, { status: 'processing', completed_at: null }) });
const refused = { success: false, error: { code: 'unauthorized', message: 'Invalid or missing API key' } };

describe('wait when the key is refused part-way', () => {
  it('exit 4, the key advice, and `still running: taskctl wait …` naming the unfinished task', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/7', 200, processing(7));
    api.reply('GET', '/tasks/7', 401, refused);
    const result = await runTaskctl(['wait', '7', '-o', 'tsv'], { api });
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/error: reading task 7: Invalid or missing API key/);
    const lines = result.stderr.trim().split('\n');
    expect(lines.at(-1)).toBe('still running: taskctl wait 7');
  });
});

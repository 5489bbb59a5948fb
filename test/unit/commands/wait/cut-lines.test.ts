/**
 * wait's live block on an 80-column terminal: a line too long for it (the reason under the "! polling" head, a long
 * error) is cut to the line budget and ends with `…`, as every other cut line does, so a person can tell the text goes on.
 */
import { describe, expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { textWidth } from '../../../../src/output/width.js';
import { mockApi, runTaskctl } from '../run-in-process.js';

const processing = {
  success: true,
  data: task(7, { status: 'processing', completed_at: null, completed_items: 0, failed_items: 0 }),
};
const long = `upstream down: ${'the load balancer found no healthy backend for this route '.repeat(2)}`;
const bad = { success: false, error: { code: 'internal_error', message: long } };
const done = { success: true, data: task(7, { status: 'completed', completed_items: 1, failed_items: 0 }) };

/** Every frame's lines as drawn (the cursor moves and line clears left out). */
function drawnLines(stderr: string): string[] {
  return stderr
    .replace(/\x1b\[\d*[ABGK]/g, '\n')
    .split('\n')
    .filter((line) => line !== '');
}

describe('wait on an 80-column terminal', () => {
  it('wraps the reason under the "! polling" line within the line budget, whole', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/7', 200, processing);
    api.reply('GET', '/tasks/7', 502, bad, { times: 4 });
    api.reply('GET', '/tasks/7', 200, done, { times: 2 });
    api.allowUnused();
    const result = await runTaskctl(['wait', '7', '--no-results'], {
      api,
      stderrTTY: true,
      columns: 80,
      env: { NO_COLOR: '1' },
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = drawnLines(result.stderr);
    const polling = lines.filter((line) => line.startsWith('! polling'));
    expect(polling.length).toBeGreaterThan(0);
    for (const line of polling) expect(line).toMatch(/^! polling, last answer [\d.]+s ago( \(giving up in \S+\))?$/);
    expect(polling.some((line) => line.includes('giving up in'))).toBe(true);
    // The reason has lines of its own below the head, wrapped at words, never past the line budget of 79 columns.
    const at = lines.findIndex((line) => line.startsWith('  reading task 7'));
    expect(lines[at]).toMatch(/^ {2}reading task 7: the service failed \(HTTP 502, internal_error: upstream/);
    for (const line of lines) expect(textWidth(line), line).toBeLessThanOrEqual(79);
    expect(lines[at + 1]).toMatch(/^ {2}\S/);
    expect(lines.slice(at, at + 3).join(' ')).toContain('healthy backend for this route');
  });
});

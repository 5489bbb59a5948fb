/** `list --status`: known statuses pass, an unknown one is exit 2 with the closest known word. */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../run-in-process.js';

describe('list --status', () => {
  it('refuses an unknown status before any request, suggesting the closest known one', async () => {
    const api = mockApi();
    // A typo; "finished" (a word for a group) names its filter instead (output.test.ts).
    const result = await runTaskctl(['list', '--status', 'faild'], { api });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/unknown status "faild"/);
    expect(result.stderr).toMatch(/did you mean "failed"\?/i);
    expect(result.stderr).toMatch(/^Use --status failed /m);
    expect(result.stderr).not.toMatch(/awk|pending, processing/);
  });

  it('a typo is two lines at 80 columns: the word it is near, and the flag that asks for it', async () => {
    const result = await runTaskctl(['list', '--status', 'runing'], {
      api: mockApi(),
      stderrTTY: true,
      columns: 80,
      env: { NO_COLOR: '1' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: unknown status "runing"; did you mean "running"?\n' +
        'Use --status running (`taskctl list --help` lists every status word).\n',
    );
  });

  it("a word near none: the known ones, and how to filter on a status of the server's own", async () => {
    const result = await runTaskctl(['list', '--status', 'on_hold'], { api: mockApi() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown status "on_hold"; known: pending, processing, completed, failed/);
    expect(result.stderr).toMatch(/awk -F'\\t' '\$3 == "on_hold"'/);
  });

  it('checks every value of a comma-separated list and of a repeated flag', async () => {
    const api = mockApi();
    const result = await runTaskctl(['list', '--status', 'failed', '--status', 'pending,procesing'], { api });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown status "procesing".*did you mean "processing"\?/i);
  });

  it('accepts the statuses docs/openapi.json shows and the words a server may use for an ended task', async () => {
    const api = mockApi();
    // A filter searches: pages of 100.
    api.reply('GET', '/tasks?page=1&per_page=100', 200, {
      success: true,
      data: [
        { id: 3, service: 's', status: 'cancelled', total_items: 1, cost: 1, created_at: '2026-01-01T00:00:00Z' },
        { id: 2, service: 's', status: 'completed', total_items: 1, cost: 1, created_at: '2026-01-01T00:00:00Z' },
      ],
      meta: { current_page: 1, total_pages: 1, total_count: 2, per_page: 100 },
    });
    const result = await runTaskctl(['list', '--status', 'cancelled,expired', '-o', 'tsv'], { api });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toMatch(/^3\t/);
    expect(result.stdout).not.toMatch(/^2\t/m);
  });
});

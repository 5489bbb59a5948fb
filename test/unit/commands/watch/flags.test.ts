/** `watch`'s flags that only make sense without ids: refused with ids, never silently dropped. */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../run-in-process.js';

describe('watch --follow', () => {
  it('with task ids: exit 2 before any request, naming the command that watches them', async () => {
    const api = mockApi();
    const result = await runTaskctl(['watch', '7', '8', '--follow'], { api });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: --follow watches new tasks as they are created: it takes no task ids\n' +
        'Watch those tasks without it: taskctl watch 7 8\n',
    );
    expect(api.calls).toEqual([]);
  });
});

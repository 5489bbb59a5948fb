/** `watch --job ID`: the tasks of a journaled job watched as their ids would be; the hint to it works as printed. */
import { describe, expect, it } from 'vitest';
import { sandboxJob } from '../sandbox-job.js';

describe('watch --job', () => {
  it('watches every task of the job, and --json with it prints their events', async () => {
    const { run, journal, ids } = await sandboxJob(['a.com', 'b.com', 'c.com'], 2);
    expect(ids).toHaveLength(2);
    const result = await run(['watch', '--job', journal, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; task: { id: number } });
    expect([...new Set(events.map((event) => event.task.id))].sort()).toEqual([...ids].sort());
    expect(events.filter((event) => event.event === 'completed')).toHaveLength(2);
  });

  it('task ids and --job together, or --follow with it, are refused (exit 2) with the command that works', async () => {
    const { run, journal, ids } = await sandboxJob(['a.com'], 1);
    const both = await run(['watch', String(ids[0]), '--job', journal]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(`give task ids or --job, not both\ntaskctl watch --job ${journal}\n`);
    const follow = await run(['watch', '--follow', '--job', journal]);
    expect(follow.code).toBe(2);
    expect(follow.stderr).toContain(`taskctl watch --job ${journal}\n`);
  });
});

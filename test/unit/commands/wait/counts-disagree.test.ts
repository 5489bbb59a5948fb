/**
 * `wait` on an answer whose counts contradict each other (more items counted than `total_items`): never more than
 * 100% (nor a bar past full), one warning on stderr that the service's counts disagree, and 100% only once the status
 * says the task ended, not on the counts alone.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, mockApi, runTaskctl, T0 } from '../run-in-process.js';

function task(status: string, itemStatus: string) {
  return {
    success: true,
    data: {
      id: 7,
      service: 'domain_check_availability',
      status,
      total_items: 1,
      completed_items: 3,
      failed_items: 0,
      cost: 3,
      created_at: new Date(T0 - 6_000).toISOString(),
      completed_at: status === 'completed' ? new Date(T0).toISOString() : null,
      items: ['a.com', 'b.com', 'c.com'].map((target) => ({ target, status: itemStatus, data: { available: true } })),
    },
  };
}

function api() {
  const mock = mockApi();
  mock.reply('GET', '/tasks/7', 200, task('processing', 'completed'));
  mock.reply('GET', '/tasks/7', 200, task('completed', 'completed'));
  return mock;
}

const body = (line: string) => line.replace(/^\S+Z /, '');

describe('wait: counts that disagree', () => {
  it('in a log: 100% at most, and not before the status says so; one warning naming both counts', async () => {
    const result = await runTaskctl(['wait', '7', '-o', 'tsv'], {
      api: api(),
      clock: new FakeClock(),
      env: { CI: 'true' },
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr
      .split('\n')
      .filter((line) => line !== '')
      .map(body);
    const percents = [...result.stderr.matchAll(/(\d+)%/g)].map((match) => Number(match[1]));
    expect(Math.max(...percents)).toBe(100);
    expect(lines.filter((line) => line.includes('counts disagree'))).toEqual([
      expect.stringMatching(/^warning: task 7: the service's counts disagree: 3 items counted, but total_items is 1/),
    ]);
    expect(lines.find((line) => line.includes('processing'))).toMatch(/items 3\/1 \(99% finished\)/);
    expect(lines.at(-1)).toMatch(/^✓ task 7 completed items 3\/1 \(100% finished\)/);
  });

  it('on a terminal: the bar and the percent stop at full', async () => {
    const result = await runTaskctl(['wait', '7', '-o', 'tsv'], {
      api: api(),
      clock: new FakeClock(),
      stderrTTY: true,
      columns: 80,
      env: { NO_COLOR: '1' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/300%/);
    expect(result.stderr).toMatch(/✓ task 7 completed █+ 100% 3\/1/);
    expect(result.stderr.match(/counts disagree/g)).toHaveLength(1);
  });
});

/** Task 8: completed, four items all completed, but its own counts say 1 completed and 3 failed. */
function contradicted() {
  return {
    success: true,
    data: {
      id: 8,
      service: 'domain_check_availability',
      status: 'completed',
      total_items: 4,
      completed_items: 1,
      failed_items: 3,
      cost: 4,
      created_at: new Date(T0 - 6_000).toISOString(),
      completed_at: new Date(T0).toISOString(),
      items: ['a.com', 'b.com', 'c.com', 'd.com'].map((target) => ({
        target,
        status: 'completed',
        data: { available: true },
      })),
    },
  };
}

describe('wait: counts that say worse than the items', () => {
  it('is no clean success: exit 11 with one warning naming both readings; --allow-item-failures makes it 0', async () => {
    const mock = mockApi();
    mock.reply('GET', '/tasks/8', 200, contradicted());
    const result = await runTaskctl(['wait', '8', '-o', 'tsv'], {
      api: mock,
      clock: new FakeClock(),
      env: { CI: 'true' },
    });
    expect(result.code, result.stderr).toBe(11);
    expect(result.stderr.match(/counts disagree/g)).toHaveLength(1);
    expect(result.stderr).toMatch(
      /warning: task 8: the service's counts disagree with its items: completed_items 1, failed_items 3, but its items show 4 completed, 0 failed; taken as 1\/4, 3 failed/,
    );
    expect(result.stderr).not.toMatch(/4\/4/);
    // No item list shows failures only the counts say: the hint is the task as sent.
    expect(result.stderr).toMatch(
      /task 8 completed with 3 failed items by the service's counts: taskctl show 8 -o json/,
    );

    const allowed = mockApi();
    allowed.reply('GET', '/tasks/8', 200, contradicted());
    const again = await runTaskctl(['wait', '8', '--allow-item-failures'], {
      api: allowed,
      clock: new FakeClock(),
      env: { CI: 'true' },
    });
    expect(again.code, again.stderr).toBe(0);
  });
});

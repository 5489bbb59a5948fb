/** `--max-cost` guards money: it is checked against the server's price now, and a charge above it is never silent. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { mockApi, replyNoTasks, replyServices, runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
let home: string | undefined;
afterEach(() => {
  if (home !== undefined) rmSync(home, { recursive: true, force: true });
});

it('--max-cost reads the price from the server, not a price cached before it changed', async () => {
  home = mkdtempSync(join(tmpdir(), 'taskctl-maxcost-'));
  const before = mockApi();
  replyServices(before, 1);
  before.reply('GET', '/balance', 200, { success: true, data: { balance: 1000, currency: 'coins' } });
  expect((await runTaskctl(['create', S, 'a.com', 'b.com', '--dry-run'], { api: before, home })).code).toBe(0);

  // The price is now 100 a item: 200 coins is above --max-cost 10, so nothing is sent (no POST is mocked).
  const now = mockApi();
  replyServices(now, 100);
  const result = await runTaskctl(['create', S, 'a.com', 'b.com', '--max-cost', '10'], { api: now, home });
  expect(result.stderr).toMatch(/the estimate is 200 coins, above --max-cost 10; nothing was created/);
  expect(result.code).toBe(6);
  now.assertAllUsed();
});

it('a charge above --max-cost (the price changed between the estimate and the create) is a warning', async () => {
  const api = mockApi();
  replyServices(api, 1);
  replyNoTasks(api);
  api.reply('POST', '/tasks', 201, { success: true, data: task(77, { status: 'pending', total_items: 2, cost: 200 }) });
  const result = await runTaskctl(['create', S, 'a.com', 'b.com', '--max-cost', '10', '-q'], { api });
  expect(result.stdout).toBe('77\n');
  expect(result.stderr).toMatch(/task 77 cost 200 coins, above --max-cost 10 \(the price changed after the estimate\)/);
  // Exit 0: the task exists and is paid for; a failure code would invite a script to create (and pay) again.
  expect(result.code).toBe(0);
  api.assertAllUsed();
});

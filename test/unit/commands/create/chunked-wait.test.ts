/**
 * `create --chunk-size N --wait` against a sandbox that states its rate limit (100/min): the wait looks at the tasks
 * as soon as the last chunk is created, while the budget has room (the create's own burst is no debt for the poll);
 * and a run stopped before the wait still puts every task it created on stdout, in the chosen format.
 */
import { expect, it } from 'vitest';
import { ctrlCWhen, T0 } from '../../clock.js';
import { worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../harness.js';

const S = 'domain_check_availability';
const ITEMS = ['a.com', 'b.com', 'c.com'];
let world: World;
worldEachTest('taskctl-chunked-wait-', (w) => (world = w), { rateLimit: 100 });
const ids = async () => (await world.tasks()).map((t) => t.id).sort((a, b) => a - b);

it('5 chunks, --timeout 4s: the first read goes at once after the last POST, and the run ends 0 well inside it', async () => {
  const items = Array.from({ length: 5 }, (_, i) => `cc${i + 1}.example.com`);
  const result = await world.run(['create', S, ...items, '--chunk-size', '1', '-y', '--wait', '--timeout', '4s', '-q']);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.trim().split('\n')).toHaveLength(5);
  // Virtual time: the tasks finish at once, so every sleep the run took was pacing. The even pace (0.6 s a request)
  // after 5 POSTs and their reads (12 requests) would hold the first read past the deadline; the budget (88 of 100
  // left) holds it not at all.
  expect(world.clock.now() - T0, `sleeps: ${world.clock.sleeps.join(' ')}`).toBeLessThan(2000);
  expect(Math.max(0, ...world.clock.sleeps)).toBeLessThan(1000);
});

it.each(['tsv', 'json'])(
  'Ctrl-C part-way through the chunks (-o %s): the task created has its record on stdout, one whole document',
  async (format) => {
    // The second chunk's POST is reset before it reaches the server; Ctrl-C while that is checked.
    await world.fault({ method: 'POST', path: '/tasks', kind: 'delay', delayMs: 0 });
    await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-before' });
    const controller = new AbortController();
    const result = await runTaskctl(['create', S, ...ITEMS, '--chunk-size', '1', '--wait', '-o', format], {
      env: world.env,
      clock: ctrlCWhen(world.clock, controller, (ms) => ms >= 2000),
      signal: controller.signal,
    });
    const [only] = await ids();
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(new RegExp(`created 1 of 3 tasks: ${only} before that`));
    if (format === 'json') expect(JSON.parse(result.stdout)).toMatchObject([{ id: only, status: 'pending' }]);
    else expect(result.stdout).toMatch(new RegExp(`^${only}\\t${S}\\tpending\\t.*\\n$`));
  },
);

it('a later chunk refused for the balance (exit 6): the tasks created before it are on stdout', async () => {
  // A balance for one item, and no balance to read before the first POST: the second chunk is refused (402).
  const response = await fetch(`${world.sandbox.origin}/__sandbox/balance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ balance: 1 }),
  });
  expect(response.status).toBe(200);
  await world.fault({ method: 'GET', path: '/balance', kind: 'status', status: 503, count: 100 });
  const result = await world.run(['create', S, ...ITEMS, '--chunk-size', '1', '-y', '--wait', '-o', 'ndjson']);
  const [only] = await ids();
  expect(result.code, result.stderr).toBe(6);
  const records = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { id: number });
  expect(records.map((record) => record.id)).toEqual([only]);
});

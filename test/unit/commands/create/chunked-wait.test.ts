/**
 * `create --chunk-size N --wait` against a sandbox that states its rate limit (100/min): the wait looks at the tasks
 * as soon as the last chunk is created, while the budget has room (the create's own burst is no debt for the poll).
 */
import { expect, it } from 'vitest';
import { T0 } from '../../clock.js';
import { worldEachTest, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
let world: World;
worldEachTest('taskctl-chunked-wait-', (w) => (world = w), { rateLimit: 100 });

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

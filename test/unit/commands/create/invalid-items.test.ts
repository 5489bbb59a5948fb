/** Invalid items refused (exit 3, nothing sent): the hint's words count them, one item or several. */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSandboxWorld, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
let world: World;
beforeEach(async () => {
  world = await startSandboxWorld();
});
afterEach(() => world.close());

it.each([
  [['bad host'], 'Fix it, or pass --skip-invalid to drop it (or --no-validate to send it as written).'],
  [
    ['bad host', 'worse host'],
    'Fix them, or pass --skip-invalid to drop them (or --no-validate to send them as written).',
  ],
])('%j', async (items, hint) => {
  const result = await world.run(['create', S, 'a.com', ...items]);
  expect(result.code).toBe(3);
  expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(hint);
  expect(await world.tasks()).toHaveLength(0);
});

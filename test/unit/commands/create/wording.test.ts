/** create's messages in words: singular and plural, and a reused task never reads as paid for. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxWorld, type World } from '../sandbox-world.js';

const S = 'domain_check_availability'; // 1 coin an item in the sandbox
let world: World;
beforeEach(async () => {
  world = await startSandboxWorld();
});
afterEach(() => world.close());

describe('create wording', () => {
  it('one item is "1 item", one coin "1 coin"', async () => {
    const result = await world.run(['create', S, 'a.com']);
    expect(result.stderr).toMatch(/task \d+ for 1 item, 1 coin\n/);
  });

  it('a reused task says "no coins spent" and costs nothing in the summary', async () => {
    const first = await world.run(['create', S, 'a.com', 'b.com', '-q']);
    const again = await world.run(['create', S, 'a.com', 'b.com', '-o', 'tsv', '--reuse-window', '1h']);
    expect(again.stdout.split('\t')[0]).toBe(first.stdout.trim());
    expect(again.stderr).toContain(`reused task ${first.stdout.trim()} for 2 items (no coins spent)`);
    expect(again.stderr).not.toMatch(/coins\b(?! spent)/);
  });

  it('chunks where one is reused: paid and reused are counted apart', async () => {
    const first = await world.run(['create', S, 'a.com', '-q']);
    const both = await world.run([
      'create',
      S,
      'a.com',
      'b.com',
      'c.com',
      '--chunk-size',
      '1',
      '-o',
      'tsv',
      '--reuse-window',
      '1h',
    ]);
    const [reused, ...created] = both.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t')[0]);
    expect(reused).toBe(first.stdout.trim());
    expect(both.stderr).toContain(
      `2 tasks for 2 items, 2 coins; reused task ${first.stdout.trim()} for 1 item (no coins spent)`,
    );
    expect(created).toHaveLength(2);
  });

  it('one duplicate is "1 duplicate item"', async () => {
    const result = await world.run(['create', S, 'a.com', 'a.com']);
    expect(result.stderr).toMatch(/removed 1 duplicate item \(/);
  });
});

import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { loadChalk, palette } from '../../../src/output/colour.js';

describe('palette', () => {
  it('without colour gives what chalk at level 0 gives, for styles, chains and arguments', () => {
    const plain = palette(false);
    const chalk = new Chalk({ level: 0 });
    const calls: Array<(c: typeof chalk) => string> = [
      (c) => c.red('failed'),
      (c) => c.bold.red('a', 'b'),
      (c) => c.dim('-'),
      (c) => c.green.bgBlack.underline(42),
      (c) => c.yellow(),
      (c) => c.visible('shown only in colour'),
      (c) => c.bold.visible('x'),
      (c) => String(c.level),
    ];
    for (const call of calls) expect(call(plain)).toBe(call(chalk));
  });

  it('with colour: chalk at level 1 once loaded', async () => {
    await loadChalk();
    expect(palette(true).red('x')).toBe(new Chalk({ level: 1 }).red('x'));
  });
});

/**
 * Talk printed while a live block is drawn (a warning from deep in a create, an info line) is written with the block
 * out of the way, then the block is drawn again below it: it never lands on the block's line.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryIO } from '../../../src/output/memory-io.js';
import { createPrinter } from '../../../src/output/printer.js';

describe('printer talk during a live block', () => {
  it('erases the block, writes the line, redraws the block; after stop() talk is written as it is', async () => {
    const memory = createMemoryIO({ stderrTTY: true, columns: 80 });
    const printer = createPrinter({ io: memory.io, format: 'table', color: false });
    const progress = await printer.progress();
    expect(progress.mode).toBe('live');
    progress.live(() => ['⠋ chunk 2 of 3']);
    printer.warn('the answer was lost; checking the task list for it');
    const drawn = memory.stderr.text();
    // The warning starts at the first column of a cleared line, not after the block's text.
    expect(drawn).toMatch(
      /\x1b\[2Kwarning: the answer was lost; checking the task list for it\n\x1b\[1G⠋ chunk 2 of 3/,
    );
    expect(drawn).not.toMatch(/chunk 2 of 3warning/);
    progress.stop();
    const before = memory.stderr.text().length;
    printer.info('done');
    expect(memory.stderr.text().slice(before)).toBe('done\n');
  });
});

/** Every command's `--help`: no hard line break in the middle of a sentence, and nothing wider than a 40-column terminal. */
import { describe, expect, it } from 'vitest';
import { commandPaths, render } from '../../../src/boot/render-help.js';
import { main } from '../../../src/main.js';
import { createMemoryIO } from '../../../src/output/memory-io.js';
import { textWidth } from '../../../src/output/width.js';
import { buildProgram } from '../../../src/program.js';

const paths = [...commandPaths(buildProgram(createMemoryIO().io, async () => {}))];

describe('help texts', () => {
  it('break lines only between sentences or items: never before a word that continues the sentence', async () => {
    const breaks: string[] = [];
    for (const path of paths) {
      // Wider than any line: every break left is one written in the text.
      const lines = (await render(main, path, 10_000)).split('\n');
      lines.forEach((line, i) => {
        const next = lines[i + 1] ?? '';
        if (/[a-z,]$/.test(line) && /^[a-z(]/.test(next))
          breaks.push(`${path.join(' ')}: "${line.slice(-30)}⏎${next.slice(0, 30)}"`);
      });
    }
    expect(breaks).toEqual([]);
  });

  it("fit a 40-column terminal (only a path or an example's quoted argument longer than a line stays whole, to be copied)", async () => {
    const wide: string[] = [];
    // One shell word on its line (a quoted jq filter), perhaps with its continuation ` \`.
    const oneWord = /^ +(?:'[^']*'|"[^"]*"|\S+)(?: \\)?$/;
    for (const path of paths) {
      for (const line of (await render(main, path, 40)).split('\n'))
        if (textWidth(line) > 40 && line.trim().includes(' ') && !oneWord.test(line))
          wide.push(`${path.join(' ')}: ${line}`);
    }
    expect(wide).toEqual([]);
  });
});

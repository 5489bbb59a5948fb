/** `webhook listen --exec`: the command's output as log lines, bounded however it is written. */
import { describe, expect, it } from 'vitest';
import { runExec } from '../../../src/webhook/exec.js';

describe('runExec', () => {
  it('output without line breaks is logged in pieces of 64 Ki characters, none of it lost', async () => {
    const lines: string[] = [];
    await runExec(
      `head -c 200000 /dev/zero | tr '\\0' x; echo; echo done`,
      { name: 'task.completed', taskId: '7' },
      '{}',
      { PATH: process.env.PATH },
      (line) => lines.push(line),
    );
    const label = 'exec (task.completed, task 7): ';
    expect(lines.map((line) => line.length - label.length)).toEqual([65_536, 65_536, 65_536, 3_392, 4]);
    expect(lines.slice(0, 4).join('').replaceAll(label, '')).toBe('x'.repeat(200_000));
    expect(lines.at(-1)).toBe(`${label}done`);
  });
});

import { describe, expect, it } from 'vitest';
import { asciiTargetHash, targetHash } from '../../../../src/core/diff/sort.js';

/** A deterministic generator: the same cases on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

describe('asciiTargetHash', () => {
  it('gives the number targetHash gives the same ASCII text, at every length and offset', () => {
    const next = random(38);
    for (let length = 0; length <= 40; length++) {
      for (let round = 0; round < 25; round++) {
        const text = Array.from({ length }, () => String.fromCharCode(32 + Math.floor(next() * 95))).join('');
        const offset = Math.floor(next() * 5);
        const buf = Buffer.from(`${'x'.repeat(offset)}${text}yz`, 'latin1');
        expect(asciiTargetHash(buf, offset, offset + length), JSON.stringify(text)).toBe(targetHash(text));
      }
    }
  });

  it('hashes the target of a line as it is found in the line', () => {
    const target = 'host-a1b2.example-13.com';
    const line = Buffer.from(`{"target":"${target}","status":"completed"}`);
    const start = line.indexOf(target);
    expect(asciiTargetHash(line, start, start + target.length)).toBe(targetHash(target));
  });
});

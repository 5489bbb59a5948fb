/**
 * The order the suite's files start in, with or without vitest's results cache (test/setup/spread-long-files.ts): the
 * long files spread among the unit files, the terminal files among the long ones. The order only moves seconds, so nothing
 * else would fail if it broke: this file is its check.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTerminalFile, spreadInto } from '../../setup/spread-long-files.js';

const E2E = new URL('../../e2e/', import.meta.url).pathname;

describe('spreadInto', () => {
  it('starts the k-th of n spread items once k/n × span of the weight went before it, in both orders', () => {
    const into = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
    expect(spreadInto(into, ['X', 'Y', 'Z'], 0.6).join('')).toBe('XabYcdZefghij');
    expect(spreadInto(into, ['X', 'Y'], 1).join('')).toBe('XabcdeYfghij');
  });

  it('weighs the items it spreads into: a heavy first item holds back the next spread item', () => {
    const weight = (item: string) => (item === 'a' ? 7 : 1);
    expect(spreadInto(['a', 'b', 'c', 'd'], ['X', 'Y'], 1, weight).join('')).toBe('XaYbcd');
  });

  it('keeps every item once, the spread ones all placed even past a span of 1', () => {
    const into = Array.from({ length: 7 }, (_, i) => `u${i}`);
    const spread = Array.from({ length: 5 }, (_, i) => `L${i}`);
    const merged = spreadInto(into, spread, 1.4);
    expect([...merged].sort()).toEqual([...into, ...spread].sort());
    expect(merged.filter((item) => item.startsWith('L'))).toEqual(spread);
  });
});

it('every e2e file that opens a terminal is one the order spreads out, and no other', () => {
  const files = readdirSync(E2E).filter((name) => name.endsWith('.test.ts'));
  const opening = files.filter((name) => /\bopenTerminal\(/.test(readFileSync(join(E2E, name), 'utf8')));
  expect(opening.length).toBeGreaterThan(5);
  expect(files.filter((name) => isTerminalFile(join(E2E, name)))).toEqual(opening);
});

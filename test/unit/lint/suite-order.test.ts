/**
 * The order the suite's files start in, with or without vitest's results cache (test/setup/spread-long-files.ts): the
 * waiting files as one lane among the computing ones, the long tiers' computing files among the unit files. The order
 * only moves seconds, so nothing else would fail if it broke: this file is its check.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spreadInto, WAITING_FILES, waitingSeconds } from '../../setup/spread-long-files.js';

const ROOT = new URL('../../../', import.meta.url).pathname;
const E2E = join(ROOT, 'test/e2e');

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

  it('weighs the items it spreads: each starts when the share of into before it is that of spread before it', () => {
    const into = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
    // X is 3 of the 5 seconds: Y waits for 3/5 of into, Z for 4/5.
    const seconds = (item: string) => ({ X: 3, Y: 1, Z: 1 })[item] ?? 0;
    expect(spreadInto(into, ['X', 'Y', 'Z'], 1, () => 1, seconds).join('')).toBe('XabcdefYghZij');
  });
});

describe('the waiting files', () => {
  it('are all files of the suite, named from the repository root', () => {
    for (const file of Object.keys(WAITING_FILES)) expect(existsSync(join(ROOT, file)), file).toBe(true);
  });

  it('hold every e2e file that opens a terminal (a terminal file waits on screens for seconds)', () => {
    const files = readdirSync(E2E).filter((name) => name.endsWith('.test.ts'));
    const opening = files.filter((name) => /\bopenTerminal\(/.test(readFileSync(join(E2E, name), 'utf8')));
    expect(opening.length).toBeGreaterThan(5);
    expect(opening.filter((name) => waitingSeconds(join(E2E, name)) === 0)).toEqual([]);
  });
});

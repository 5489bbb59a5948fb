import { describe, expect, it } from 'vitest';
import { endingWords } from '../../../src/api/request.js';

const BUDGET = 35_000;

describe('how a request ended, in the words after its error', () => {
  it('one attempt, given up as final: nothing more said', () => {
    expect(endingWords(undefined)).toBe('');
    expect(endingWords({ attempts: 1, stop: 'final', budgetMs: BUDGET })).toBe('');
    expect(endingWords({ attempts: 1, stop: 'final', budgetMs: BUDGET }, true)).toBe('');
  });

  it('an error that names no time: the attempts, then why no other followed', () => {
    expect(endingWords({ attempts: 4, stop: 'final', budgetMs: BUDGET })).toBe(' after 4 attempts');
    expect(endingWords({ attempts: 2, stop: 'budget', budgetMs: BUDGET })).toBe(
      ' after 2 attempts (no time left to try again within --request-timeout 35s)',
    );
    expect(endingWords({ attempts: 2, stop: 'deadline', budgetMs: BUDGET })).toBe(
      ' after 2 attempts (no time left to try again before the deadline)',
    );
    expect(endingWords({ attempts: 1, stop: 'deadline', budgetMs: BUDGET })).toBe(
      ' (no time left to try again before the deadline)',
    );
  });

  it('a timeout, which names its time: the attempts beside it, and a budget spent not said twice', () => {
    // `did not answer within 35s (2 attempts)`, never `within 35s after 2 attempts (… within --request-timeout 35s)`.
    expect(endingWords({ attempts: 2, stop: 'budget', budgetMs: BUDGET }, true)).toBe(' (2 attempts)');
    expect(endingWords({ attempts: 1, stop: 'budget', budgetMs: 300 }, true)).toBe('');
    expect(endingWords({ attempts: 4, stop: 'final', budgetMs: BUDGET }, true)).toBe(' (4 attempts)');
    expect(endingWords({ attempts: 2, stop: 'deadline', budgetMs: BUDGET }, true)).toBe(
      ' (2 attempts; no time left to try again before the deadline)',
    );
  });
});

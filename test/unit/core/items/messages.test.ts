/** What an items source that fails to read says: the place, the reason in words, what to do next. */
import { describe, expect, it } from 'vitest';
import { readError } from '../../../../src/core/items/messages.js';

describe('readError', () => {
  it.each([
    ['EIO', 'an input/output error'],
    ['ECONNRESET', 'the connection was reset'],
    ['EWHATEVER', 'an unexpected system error'],
  ])('a read that fails with %s is said in words, never with the errno name or Node text', (code, words) => {
    const failure = Object.assign(new Error(`${code}: i/o error, read`), { code, syscall: 'read' });
    const error = readError('items.txt', failure);
    expect(error).toMatchObject({
      exitCode: 3,
      message: `cannot read items.txt: ${words}`,
      hint: 'Check that the file or pipe is readable.',
    });
    expect(error.message).not.toContain(code);
  });
});

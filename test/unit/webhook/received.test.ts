import { describe, expect, it } from 'vitest';
import { metaOf } from '../../../src/webhook/received.js';

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('metaOf', () => {
  it('reads a body nested 256 levels deep and refuses one nested 257 (the 400 of the listener)', () => {
    expect(metaOf(nested(256))).not.toHaveProperty('unreadable');
    expect(metaOf(nested(257))).toEqual({ unreadable: 'body is nested more than 256 levels deep' });
    expect(metaOf(`{"task":{"id":1,"x":${nested(254)}}}`)).toMatchObject({ taskId: '1' });
    expect(metaOf(`{"task":{"id":1,"x":${nested(255)}}}`)).toEqual({
      unreadable: 'body is nested more than 256 levels deep',
    });
  });

  it('keeps a task id beyond 2^53 as its digits, beside numbers with exponents, and an id written with one as written', () => {
    const event = (task: string) => `{"event":"completed","n":9007199254740993,"task":${task}}`;
    expect(metaOf(event('{"a":1E+400,"id":1152921504606846977,"b":-2.5e-7}'))).toMatchObject({
      name: 'completed',
      taskId: '1152921504606846977',
    });
    expect(metaOf(event('{"id":1.5e18}'))).toMatchObject({ taskId: '1.5e18' });
    expect(metaOf(event('{"id":9007199254740991}'))).toMatchObject({ taskId: '9007199254740991' });
    expect(metaOf(event('{"i\\u0064":9007199254740993,"id":9007199254740995}'))).toMatchObject({
      taskId: '9007199254740995',
    });
  });
});

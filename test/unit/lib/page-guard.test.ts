import { describe, expect, it } from 'vitest';
import { PageWalkGuard } from '../../../src/lib/page-guard.js';

const tasks = (...ids: number[]) => ids.map((id) => ({ id }));

describe('PageWalkGuard', () => {
  it('passes a normal walk and drops ids repeated by a shifted list', () => {
    const guard = new PageWalkGuard('GET /tasks');
    expect(guard.accept(1, 2, tasks(5, 4, 3))).toEqual(tasks(5, 4, 3));
    expect(guard.accept(2, 2, tasks(3, 2, 1))).toEqual(tasks(2, 1));
  });

  it('stops with exit 8 on a page that repeats everything, endless growth, or past the page cap', () => {
    const repeat = new PageWalkGuard('GET /tasks');
    repeat.accept(1, 9, tasks(1, 2));
    expect(() => repeat.accept(2, 9, tasks(1, 2))).toThrow(
      expect.objectContaining({ exitCode: 8, message: expect.stringMatching(/repeats/) }),
    );

    const growing = new PageWalkGuard('GET /tasks');
    growing.accept(1, 3, tasks(1));
    expect(() => growing.accept(2, 9, tasks(2))).toThrow(/total_pages grew from 3 to 9/);

    const capped = new PageWalkGuard('GET /tasks', 3);
    for (let page = 1; page <= 3; page++) capped.accept(page, 3, tasks(page));
    expect(() => capped.accept(4, 3, tasks(4))).toThrow(/more than 3 pages/);
  });
});

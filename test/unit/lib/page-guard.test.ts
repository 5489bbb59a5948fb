import { describe, expect, it } from 'vitest';
import { listedTwice, PageWalkGuard, REMEMBERED_IDS } from '../../../src/lib/page-guard.js';

const tasks = (...ids: number[]) => ids.map((id) => ({ id }));
/** Page `page` of a list whose every page holds `size` ids never seen before (a huge list, or a hostile server). */
const freshPage = (page: number, size = 100) => Array.from({ length: size }, (_, i) => ({ id: page * size + i }));

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

  it('remembers a bounded number of ids, whatever the length of the walk (a search has no page cap)', () => {
    // 100 pages of the API's largest (100).
    expect(REMEMBERED_IDS).toBe(10_000);
    const search = new PageWalkGuard('GET /tasks', Number.POSITIVE_INFINITY);
    let most = 0;
    let printed = 0;
    for (let page = 1; page <= 250; page++) {
      printed += search.accept(page, 1e9, freshPage(page)).length;
      most = Math.max(most, search.remembered);
    }
    expect(printed).toBe(25_000);
    expect(most).toBe(REMEMBERED_IDS);
    // A page far larger than the API allows (per_page is at most 100) does not lift the bound either.
    search.accept(251, 1e9, freshPage(251, 3 * REMEMBERED_IDS));
    expect(search.remembered).toBe(REMEMBERED_IDS);
  });

  it('still stops a server that repeats a page within the window, however long the walk has been', () => {
    const search = new PageWalkGuard('GET /tasks', Number.POSITIVE_INFINITY);
    for (let page = 1; page <= 300; page++) search.accept(page, 1e9, freshPage(page));
    // The server answers page 301 with page 250 again (it ignores `page` past some point, or cycles over 51 pages).
    expect(() => search.accept(301, 1e9, freshPage(250))).toThrow(/page 301 repeats tasks already listed/);
    // A shifted list still has its repeats dropped, not judged endless.
    expect(search.accept(301, 1e9, [...freshPage(300).slice(-3), ...freshPage(301)])).toEqual(freshPage(301));
    // So does `list --all`'s walk, past the window too: it stops at the page cap, not earlier.
    const all = new PageWalkGuard('GET /tasks');
    for (let page = 1; page <= 1_000; page++) all.accept(page, 1e9, freshPage(page));
    expect(() => all.accept(1_001, 1e9, freshPage(1_001))).toThrow(/more than 1000 pages/);
  });

  it('gives up ids older than the window: they count as new again (documented in docs/behaviour.md#http)', () => {
    const search = new PageWalkGuard('GET /tasks', Number.POSITIVE_INFINITY);
    const pages = REMEMBERED_IDS / 100 + 1;
    for (let page = 1; page <= pages; page++) search.accept(page, 1e9, freshPage(page));
    // Page 1 fell out of the window: a server cycling over more pages than that is not caught by the repeat check.
    expect(search.accept(pages + 1, 1e9, freshPage(1))).toHaveLength(100);
  });
});

describe('listedTwice', () => {
  it('names each id one page lists more than once, in the order first seen', () => {
    expect(listedTwice(tasks(3, 2, 3, 1, 2, 3))).toEqual([3, 2]);
    expect(listedTwice(tasks(1, 2))).toEqual([]);
  });
});

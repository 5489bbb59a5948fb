/**
 * A job's own claims on task ids (own-claims.ts): a claim holds a task read under its id while what was recorded of
 * its task is what the task shows; a claim with no telling fact always holds.
 */
import { describe, expect, it } from 'vitest';
import { foundClaim, lostClaim, ownClaims, withIds } from '../../../../src/core/submit/own-claims.js';
import { itemsDigest } from '../../../../src/core/items/multiset.js';
import { T0 } from '../../../clock.js';

const S = 'domain_check_availability';
const at = (ms: number) => new Date(T0 + ms).toISOString();
const task = (
  over: Partial<{
    id: number;
    service: string;
    total_items: number;
    created_at: string;
    items: Array<{ target: string; status: string }>;
  }> = {},
) => ({
  id: 1,
  service: S,
  total_items: 1,
  created_at: at(0),
  ...over,
});

describe('ownClaims', () => {
  it("a claim whose recorded created_at is the task's holds it; another creation time under the same id does not", () => {
    const claims = ownClaims([{ id: 1, created_at: at(0) }]);
    expect(claims.holds(task())).toBe(true);
    expect(claims.holds(task({ created_at: at(500) }))).toBe(true); // the same creation, to the second
    expect(claims.holds(task({ created_at: at(3_600_000) }))).toBe(false);
    expect(claims.holds(task({ id: 2 }))).toBe(false);
    expect([...claims.ids]).toEqual([1]);
  });

  it('a claim with no fact of its task holds whatever its id names (nothing guessed)', () => {
    const claims = ownClaims([{ id: 1 }]);
    expect(claims.holds(task({ created_at: at(3_600_000), service: 'other', total_items: 9 }))).toBe(true);
  });

  it('a journal chunk without created_at: its items, when the task lists them, tell another task', () => {
    const chunk = { chunk: 1, items: 1, task: 1, digest: itemsDigest(['a.com']) };
    const claims = ownClaims([{ id: 1, chunk: { service: S, chunk } }]);
    expect(claims.holds(task({ items: [{ target: 'a.com', status: 'completed' }] }))).toBe(true);
    expect(claims.holds(task())).toBe(true); // items not listed: nothing tells them apart
    expect(claims.holds(task({ items: [{ target: 'b.com', status: 'completed' }] }))).toBe(false);
    expect(claims.holds(task({ total_items: 2 }))).toBe(false);
  });

  it("a chunk's claim whose id names a task made at another time is told as lost; other mismatches are not", () => {
    const lost: Array<[number, number]> = [];
    const tell = lostClaim((chunk, seen) => lost.push([chunk, seen.id]));
    const chunk = (n: number) => ({ service: S, chunk: { chunk: n, items: 1, task: 1 } });
    const claims = ownClaims(
      [
        { id: 1, created_at: at(0), chunk: chunk(1) },
        { id: 1, created_at: at(3_600_000), chunk: chunk(4) },
        { id: 1, created_at: at(3_600_000) }, // no chunk: not a journal's
      ],
      [],
      tell,
    );
    expect(claims.holds(task({ created_at: at(3_600_000) }))).toBe(true);
    expect(lost).toEqual([[1, 1]]);
    lost.length = 0;
    // Another size under the id, at the recorded time: the claim does not hold, and nothing proves its task gone.
    expect(ownClaims([{ id: 1, created_at: at(0), chunk: chunk(1) }], [], tell).holds(task({ total_items: 2 }))).toBe(
      false,
    );
    expect(lost).toEqual([]);
  });

  it("a chunk's claim that holds the task seen under its id is told as found (a lost it recorded is undone)", () => {
    const found: Array<[number, number]> = [];
    const tell = foundClaim((chunk, id) => found.push([chunk, id]));
    const chunk = (n: number) => ({ service: S, chunk: { chunk: n, items: 1, task: 1 } });
    const claims = ownClaims(
      [
        { id: 1, created_at: at(0), chunk: chunk(1) },
        { id: 1, created_at: at(3_600_000), chunk: chunk(4) },
        { id: 1, created_at: at(0) }, // no chunk: not a journal's
      ],
      [],
      undefined,
      tell,
    );
    expect(claims.holds(task({ created_at: at(0) }))).toBe(true);
    expect(found).toEqual([[1, 1]]);
    found.length = 0;
    // Another size under the id: the chunk's claim does not hold, and nothing is found.
    expect(
      ownClaims([{ id: 1, created_at: at(0), chunk: chunk(1) }], [], undefined, tell).holds(task({ total_items: 2 })),
    ).toBe(false);
    expect(found).toEqual([]);
  });

  it('two claims on one id: either holding holds it; withIds adds ids that hold whatever they name', () => {
    const claims = ownClaims([
      { id: 1, created_at: at(0) },
      { id: 1, created_at: at(3_600_000) },
    ]);
    expect(claims.holds(task({ created_at: at(3_600_000) }))).toBe(true);
    const more = withIds(ownClaims([]), [7]);
    expect(more.holds(task({ id: 7, created_at: at(9_000_000) }))).toBe(true);
    expect([...more.ids]).toEqual([7]);
  });
});

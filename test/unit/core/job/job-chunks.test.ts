/**
 * `lostProof`, the one rule of a lost chunk (`resume` records it, the `--job` commands name it), and the words of
 * `chunkTaskProblem` for a task that is not the chunk's.
 */
import { expect, it } from 'vitest';
import { chunkTaskProblem, lostProof, type CreatedChunk } from '../../../../src/core/job/job-chunks.js';
import { ownClaims } from '../../../../src/core/submit/own-claims.js';

const S = 'domain_check_availability';
const AT = '2026-11-30T03:00:00.000Z';
const chunk: CreatedChunk = { chunk: 1, items: 1, task: 1, created_at: AT };
const task = (over: Partial<{ service: string; total_items: number; created_at: string }> = {}) => ({
  id: 1,
  service: S,
  total_items: 1,
  created_at: '2026-11-30T05:00:00.000Z',
  ...over,
});

it('a task of the chunk service and size made at another time proves the chunk lost', () => {
  expect(lostProof({ service: S }, chunk, task())).toBe(true);
  expect(chunkTaskProblem({ service: S }, chunk, task())?.reissued).toBe(true);
});

it('a task of another size or another service under the id proves nothing, and keeps its service line', () => {
  expect(lostProof({ service: S }, chunk, task({ total_items: 3 }))).toBe(false);
  expect(lostProof({ service: S }, chunk, task({ service: 'other' }))).toBe(false);
  const problem = chunkTaskProblem({ service: S }, chunk, task({ service: 'other' }));
  expect(problem?.reissued).toBeUndefined();
  expect(problem?.wrong).toContain('it is a other task, not domain_check_availability');
});

it('a creation time rounding explains, or one without a zone, proves nothing', () => {
  expect(lostProof({ service: S }, chunk, task({ created_at: '2026-11-30T03:00:01Z' }))).toBe(false);
  expect(lostProof({ service: S }, chunk, task({ created_at: '2026-11-30T05:00:00' }))).toBe(false);
  expect(lostProof({ service: S }, { chunk: 1, items: 1, task: 1 }, task())).toBe(false);
});

it("resume's claims report a chunk stale by the same rule", () => {
  const stale: number[] = [];
  const claims = ownClaims([{ id: 1, created_at: AT, chunk: { service: S, chunk } }], [], (claim) =>
    stale.push(claim.id),
  );
  claims.holds(task({ total_items: 3 }));
  claims.holds(task({ service: 'other' }));
  expect(stale).toEqual([]);
  claims.holds(task());
  expect(stale).toEqual([1]);
});

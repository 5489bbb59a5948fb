/**
 * The tasks a run or job already has for its other chunks, as the claims a create's checks judge a task by
 * (docs/behaviour.md#exactly-once): a task one of them names is never another chunk's (its create's answer, the scans
 * after a lost answer, the `--reuse-window` lookup). A claim is on an id, and a service may give an id out again (its
 * ids started again from 1: a sandbox restarted without --state): it holds a task read under that id only while what
 * was recorded of the claimed task is what the task shows, as the ledger (store/ledger.ts), the follow engine and
 * `resume --adopt` (settle.ts) judge it: its `created_at` where it was recorded (task-state.ts `sameCreation`), and
 * for a chunk of a journal the one check of a chunk's task (job-chunks.ts `chunkTaskProblem`: service, item count,
 * made after its send, its items when listed). A claim with no such fact of its own holds: nothing is guessed.
 */
import type { Claims, TaskFacts } from '../reconcile.js';
import { chunkTaskProblem, lostProof, type CreatedChunk } from '../job/job-chunks.js';
import { listedTargets, sameCreation } from '../../lib/task-state.js';

/** One claim: the task's id and what was recorded of it. */
export interface OwnClaim {
  id: number;
  /** The task's `created_at` as the service gave it when it was claimed (journals since it is kept). */
  created_at?: string;
  /** The task as a journal's chunk (its service is the job's): item count, send, items digest. */
  chunk?: { service: string; chunk: CreatedChunk };
  /** The task as this run read it: its service and item count. */
  read?: { service: string; total_items: number };
}

/**
 * The claims, judged together; `always`: ids excluded whatever task they name now (a retry's own tasks). `stale`: told
 * of each claim whose task is proven gone from its id by a task seen under it (`staleCreation`), so a job can record it;
 * `found`: of each claim of a chunk that holds the task seen (`holds`), so a job can clear a `lost` it recorded.
 */
export function ownClaims(
  claims: Iterable<OwnClaim>,
  always: Iterable<number> = [],
  stale?: (claim: OwnClaim, task: TaskFacts) => void,
  found?: (claim: OwnClaim) => void,
): Claims {
  const byId = new Map<number, OwnClaim[]>();
  for (const claim of claims) byId.set(claim.id, [...(byId.get(claim.id) ?? []), claim]);
  for (const id of always) byId.set(id, [...(byId.get(id) ?? []), { id }]);
  return {
    ids: new Set(byId.keys()),
    holds: (task) => {
      const named = byId.get(task.id) ?? [];
      if (stale !== undefined) for (const claim of named) if (staleCreation(claim, task)) stale(claim, task);
      const held = named.filter((claim) => holds(claim, task));
      if (found !== undefined) for (const claim of held) if (claim.chunk !== undefined) found(claim);
      return held.length > 0;
    },
    untold: (task) => {
      const holding = (byId.get(task.id) ?? []).filter((claim) => holds(claim, task));
      if (holding.length === 0 || holding.some((claim) => !unchecked(claim, task))) return undefined;
      return holding[0]?.chunk?.chunk.chunk;
    },
  };
}

/**
 * Whether `claim`, a journal's chunk, names `task` only because nothing recorded of its task can be checked against it:
 * no creation time (journals before it was kept), and no items digest (journals before it was kept) or a task whose
 * items are not listed in full. Its service, size and send are then all that speak, and a task given the id again
 * after the service's ids started again passes them. A claim of no chunk (a retry's own tasks, this run's answers)
 * holds on its own terms.
 */
function unchecked(claim: OwnClaim, task: TaskFacts): boolean {
  const chunk = claim.chunk?.chunk;
  if (chunk === undefined || claim.read !== undefined) return false;
  if (claim.created_at !== undefined || chunk.created_at !== undefined) return false;
  return chunk.digest === undefined || listedTargets(task) === undefined;
}

/**
 * Whether `task`, what the service shows under the claim's id now, proves the claimed chunk's task gone from that id:
 * job-chunks.ts `lostProof`, the one rule the `--job` commands judge by too (a task of the chunk's service and size,
 * created at another time than the one the journal kept). A task of another size or service under the id may be a
 * journal's wrong claim (an adopt by hand), not a task the service lost; a claim of no chunk names nothing to record.
 */
function staleCreation(claim: OwnClaim, task: TaskFacts): boolean {
  if (claim.chunk === undefined) return false;
  const created_at = claim.created_at ?? claim.chunk.chunk.created_at;
  return created_at !== undefined && lostProof(claim.chunk, { ...claim.chunk.chunk, created_at }, task);
}

/** The claims and the ids of `more`, which hold whatever they name. */
export function withIds(claims: Claims, more: Iterable<number>): Claims {
  const extra = new Set(more);
  return {
    ids: new Set([...claims.ids, ...extra]),
    holds: (task) => extra.has(task.id) || claims.holds(task),
    untold: (task) => (extra.has(task.id) ? undefined : claims.untold?.(task)),
  };
}

/** Whether `claim` still names `task`: every fact recorded of the claimed task is what `task` shows. */
export function holds(claim: OwnClaim, task: TaskFacts): boolean {
  if (claim.created_at !== undefined && !sameCreation(claim.created_at, task.created_at)) return false;
  if (claim.read !== undefined && (claim.read.service !== task.service || claim.read.total_items !== task.total_items))
    return false;
  if (claim.chunk !== undefined && chunkTaskProblem(claim.chunk, claim.chunk.chunk, task) !== undefined) return false;
  return true;
}

/**
 * How a job hears of an earlier chunk's claim proven stale (`staleCreation`: its id names a task made at another
 * time): that chunk's task is lost (`lost`, job-journal.ts). Only a claim of a journal's chunk names its chunk.
 */
export function lostClaim(
  lost: ((chunk: number, seen: { id: number; created_at: string }) => void) | undefined,
): ((claim: OwnClaim, task: TaskFacts) => void) | undefined {
  if (lost === undefined) return undefined;
  return (claim, task) => {
    const chunk = claim.chunk?.chunk.chunk;
    if (chunk !== undefined) lost(chunk, task);
  };
}

/** How a job hears of a chunk's claim that holds the task seen under its id: a `lost` of that chunk is undone. */
export function foundClaim(
  found: ((chunk: number, task: number) => void) | undefined,
): ((claim: OwnClaim) => void) | undefined {
  if (found === undefined) return undefined;
  return (claim) => {
    const chunk = claim.chunk?.chunk.chunk;
    if (chunk !== undefined) found(chunk, claim.id);
  };
}

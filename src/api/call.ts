/**
 * One logical request: attempts paced by the rate limiter, each judged (judge.ts), retried or given up on as the
 * retry policy says (retry-policy.ts), within the command's deadline and the request's budget.
 */
import { formatDuration } from '../lib/durations.js';
import { sendAttempt, type AttemptResult, type RequestSpec } from './attempt.js';
import { MAX_ATTEMPTS } from './constants.js';
import { endpointLabel } from './errors.js';
import { judgeFailure, judgeResponse, type JudgeContext, type Verdict } from './request.js';
import { decideRetry, notProcessed, type RetryStop } from './resend-policy.js';
import { attemptTimeoutFor, budgetFor, type Wire } from './wire.js';

/**
 * When a view's calls must end (epoch ms; undefined = never). With `pausesForRateLimit` it moves on by every wait for
 * the rate limit, shared by the view's calls (`withBudget`); otherwise it is fixed (`withDeadline`).
 */
export interface Deadline {
  at: number | undefined;
  readonly pausesForRateLimit: boolean;
}

type Failed<T> = Exclude<Verdict<T>, { ok: true }>;

export async function call<T>(wire: Wire, spec: RequestSpec<T>, limit: Deadline): Promise<T> {
  const { clock, limiter } = wire;
  const budgetMs = budgetFor(wire.options, spec.method);
  const ctx = judgeContext(wire, spec, budgetMs);
  // The budget counts from the first attempt; waits for the rate limit (the limiter's, a 429's) are added to it.
  let budgetEnd = clock.now() + budgetMs;
  for (let attempt = 1; ; attempt++) {
    budgetEnd += await waitForLimiter(wire, limit);
    const deadline = limit.at;
    let verdict: Verdict<T>;
    try {
      const ex = await sendAttempt(wire, spec, attempt, deadline, budgetEnd);
      if (spec.seen) spec.seen.last = ex.kind === 'response' ? ex : undefined;
      verdict = judge(ctx, spec, ex, attempt);
      // The limiter learns from every answer in this one place: the budget headers, and a 429's "not before".
      limiter.update(ex.rateLimit);
      if (!verdict.ok && verdict.blockUntilMs !== undefined) limiter.limited(verdict.blockUntilMs);
    } finally {
      limiter.release();
    }
    if (verdict.ok) return verdict.value;
    const decision = decideRetry({
      method: spec.method,
      failure: verdict.failure,
      attempt,
      waitMs: verdict.waitMs,
      now: clock.now(),
      deadline,
      deadlineMovesWithWaits: limit.pausesForRateLimit,
      budgetEnd,
    });
    tellObserver(spec, attempt, verdict, decision.retry);
    if (!decision.retry) throw giveUp(wire, verdict, attempt, decision.stop, budgetMs);
    // A wait the server announced (429) is not the request's time: the budget, and a budget view's deadline, move on.
    if (verdict.failure === 'rate-limited') {
      budgetEnd += verdict.waitMs;
      if (limit.pausesForRateLimit && limit.at !== undefined) limit.at += verdict.waitMs;
    }
    await backOff(wire, verdict, attempt);
  }
}

function judgeContext(wire: Wire, spec: RequestSpec<unknown>, budgetMs: number): JudgeContext {
  return {
    method: spec.method,
    endpoint: endpointLabel(spec.method, spec.path),
    origin: wire.origin,
    baseUrl: wire.options.baseUrl,
    loopback: wire.loopback,
    // Messages name the limit that applies: the GET's whole budget, or a write's attempt timeout.
    timeoutMs: Number.isFinite(budgetMs) ? budgetMs : attemptTimeoutFor(wire.options, spec.method),
    raw: spec.raw,
    scrub: wire.scrub,
    now: () => wire.clock.now(),
    random: wire.random,
    authHint: wire.options.authHint,
  };
}

function judge<T>(ctx: JudgeContext, spec: RequestSpec<T>, ex: AttemptResult, attempt: number): Verdict<T> {
  return ex.kind === 'response' ? judgeResponse(ctx, spec.schema, ex, attempt) : judgeFailure<T>(ctx, ex, attempt);
}

/** Waits until the limiter lets an attempt go; answers how long that took (a view's budget deadline moves by it). */
async function waitForLimiter(wire: Wire, limit: Deadline): Promise<number> {
  const { clock } = wire;
  const waitStart = clock.now();
  await wire.limiter.acquire(wire.signal, limit.pausesForRateLimit ? undefined : limit.at, (waitMs, reason) => {
    wire.notices.announce(waitMs, `for ${reason}`);
  });
  const waited = clock.now() - waitStart;
  if (limit.pausesForRateLimit && limit.at !== undefined) limit.at += waited;
  if (waited > 0) wire.trace?.(`* waited ${formatDuration(waited)} for the rate-limit budget`);
  return waited;
}

/** A create's observer hears of each attempt that provably never reached the server, and whether another follows. */
function tellObserver<T>(spec: RequestSpec<T>, attempt: number, verdict: Failed<T>, retrying: boolean): void {
  const failure = notProcessed(verdict.failure);
  if (failure) spec.observer?.onNotProcessed?.(attempt, { failure, why: verdict.why, retrying });
}

/** The error a call ends with, saying why there was no further attempt. */
function giveUp<T>(wire: Wire, verdict: Failed<T>, attempt: number, stop: RetryStop, budgetMs: number): Error {
  const suffix = attempt > 1 ? ` after ${attempt} attempts` : '';
  if (stop === 'deadline') {
    wire.trace?.(`* not retrying (${verdict.why}): the deadline comes first`);
    return verdict.fail(`${suffix} (no time left to retry before the deadline)`);
  }
  if (stop === 'budget') {
    const budget = formatDuration(budgetMs);
    wire.trace?.(`* not retrying (${verdict.why}): the request's ${budget} budget is spent`);
    return verdict.fail(`${suffix} (no time left to retry within --request-timeout ${budget})`);
  }
  return verdict.fail(suffix);
}

async function backOff<T>(wire: Wire, verdict: Failed<T>, attempt: number): Promise<void> {
  const { waitMs, why } = verdict;
  const wait = formatDuration(waitMs);
  wire.trace?.(`* retrying in ${wait} (${why}), attempt ${attempt + 1}/${MAX_ATTEMPTS}`);
  wire.options.onRetry?.(`${why}; retrying in ${wait} (attempt ${attempt + 1}/${MAX_ATTEMPTS})`);
  const what =
    verdict.failure === 'rate-limited'
      ? 'for the rate limit (the server asked to wait)'
      : `before trying again (${why})`;
  wire.notices.announce(waitMs, what);
  await wire.clock.sleep(waitMs, wire.signal);
}

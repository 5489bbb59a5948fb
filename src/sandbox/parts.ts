/** The sandbox's parts, built from its options and wired to each other: what the request pipeline works with. */
import type { AdminContext } from './admin.js';
import type { ApiContext } from './api-routes.js';
import { Dialects } from './dialects.js';
import { FaultInjector } from './faults.js';
import { errorReply } from './http.js';
import type { Reply } from './http.js';
import { LifecycleScheduler } from './lifecycle.js';
import { LiveFeed } from './live-feed.js';
import { resolveOptions } from './options.js';
import type { ResolvedOptions } from './options.js';
import { StateStore } from './persistence.js';
import { FixedWindowLimiter } from './rate-windows.js';
import { SandboxState } from './state.js';
import { RequestStats } from './stats.js';
import { TimerSet } from './timers.js';
import type { SandboxOptions } from './types.js';
import { WebhookDispatcher } from './webhooks.js';

export interface SandboxParts {
  opts: ResolvedOptions;
  /** An injected or skewed clock: the Date header must follow it (Node's own Date is this machine's clock). */
  clockInjected: boolean;
  state: SandboxState;
  store: StateStore | undefined;
  timers: TimerSet;
  dialects: Dialects;
  live: LiveFeed;
  webhooks: WebhookDispatcher;
  limiter: FixedWindowLimiter;
  stats: RequestStats;
  faults: FaultInjector;
  apiCtx: ApiContext;
  adminCtx: AdminContext;
  /** Set once listening (port 0 picks it); the Host check compares with it. */
  serverPort: number;
}

function loadState(opts: ResolvedOptions): { state: SandboxState; store: StateStore | undefined } {
  const fresh = { balance: opts.balance, apiKey: opts.apiKey, keyRotations: 0, nextId: 1, webhookUrl: null, tasks: [] };
  const opened = opts.stateFile ? StateStore.open(opts.stateFile, fresh, opts.log) : undefined;
  // An existing state file wins over the defaults-bearing options; it is what --state is for.
  const state = new SandboxState(opened?.saved ?? fresh, opts.seed);
  if (opts.webhookUrl !== undefined) state.webhookUrl = opts.webhookUrl;
  return { state, store: opened?.store };
}

export function buildParts(options: SandboxOptions): SandboxParts {
  const opts = resolveOptions(options);
  const { now, log } = opts;
  const { state, store } = loadState(opts);
  const timers = new TimerSet(options.scheduler);
  const dialects = new Dialects(opts.dialects);
  const live = new LiveFeed(timers);
  const webhooks = new WebhookDispatcher({
    onChange: () => live.notify('deliveries'),
    reshape: (payload) => dialects.webhook(payload),
    timeScale: opts.webhookTimeScale,
    timeoutMs: opts.webhookTimeoutMs,
    now,
    currentKey: () => state.apiKey,
    log,
    timers,
  });
  const lifecycle = new LifecycleScheduler(now, timers, (event) => {
    live.notify('tasks');
    // The URL in force at the moment of the transition receives it (none configured: the event is not sent).
    if (state.webhookUrl) webhooks.send(state.webhookUrl, event);
  });
  for (const task of state.tasks) lifecycle.track(task, { replayPast: false });
  const stats = new RequestStats();
  const faults = new FaultInjector();
  return {
    opts,
    clockInjected: options.clock !== undefined || (options.clockSkewMs ?? 0) !== 0,
    state,
    store,
    timers,
    dialects,
    live,
    webhooks,
    limiter: new FixedWindowLimiter(opts.rateLimit, now, opts.rateWindowMs),
    stats,
    faults,
    apiCtx: {
      state,
      now,
      seed: opts.seed,
      itemMs: opts.itemMs,
      maxItems: opts.maxItems,
      taskCreated: (task) => lifecycle.track(task, { replayPast: true }),
      dialects,
    },
    adminCtx: { state, stats, faults, webhooks, now, seed: opts.seed },
    serverPort: opts.port,
  };
}

/** No reply acknowledges or shows a change before the state journal has it on disk. */
export async function whenSaved(parts: SandboxParts, reply: Reply): Promise<Reply> {
  return (await parts.store?.settle()) === false
    ? errorReply(500, 'internal_error', 'The sandbox could not save its state')
    : reply;
}

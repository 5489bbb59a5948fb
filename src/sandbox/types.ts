/** The sandbox's public types, apart from its entry so the server can use them without importing the entry back. */
import type { TimerScheduler } from './timers.js';

export interface SandboxOptions {
  /** TCP port; default 8787, 0 = pick a free one. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** The account's API key; default `sk_sandbox_0000`. An existing state file wins. */
  apiKey?: string;
  /** Starting balance in coins; default 10000. An existing state file wins. */
  balance?: number;
  /** Simulated work per item in ms; default 200 (`slow-` items take 10×); 0 = instant. */
  itemMs?: number;
  /** Requests per minute per key; default 100; 0 = off (no X-RateLimit-* headers then). */
  rateLimit?: number;
  /** Length of a rate-limit window in ms; default 60000 (shorter windows let tests of rate-limit waits run fast). */
  rateWindowMs?: number;
  /** Maximum items per task; default 10000. */
  maxItems?: number;
  /** Loopback URL to POST task events to; overrides the state file's URL when given. */
  webhookUrl?: string | undefined;
  /** Multiplies the webhook redelivery schedule (0, 5 s, 30 s, 2 min, 5 min, 10 min); default 1. */
  webhookTimeScale?: number;
  /** A delivery attempt fails unless the receiver answers 200 within this; default 30000. */
  webhookTimeoutMs?: number;
  /** Seed of the deterministic item results and rotated keys; default `taskctl`. */
  seed?: string | number;
  /** JSON file to persist tasks, balance, key, id counter and webhook URL in; reloaded on start. Every change is
   * journaled (`FILE.journal`, fsynced before the reply) and the file is locked (`FILE.lock`) while the sandbox runs. */
  stateFile?: string | undefined;
  /** Source of "now" for timestamps, task progress and rate-limit windows; default Date. */
  clock?: { now: () => number };
  /** The sandbox's clock runs this many ms ahead of `clock` (negative: behind), Date headers included; default 0. */
  clockSkewMs?: number;
  /**
   * Starts and cancels the sandbox's timers (task transitions, webhook redeliveries, injected delays); default Node's
   * setTimeout. A test passes one that records what is pending, to see every timer cancelled by `close()`.
   */
  scheduler?: TimerScheduler;
  /** Receives notable events (webhook outcomes, state-file errors, internal errors). */
  log?: (line: string) => void;
  /**
   * Variants of the API to answer in (names in dialect-names.ts; `all` = every one); default none, the reference form.
   * An unknown name is a UsageError.
   */
  dialects?: readonly string[];
}

export interface RunningSandbox {
  /** Base URL including `/api/v1`, e.g. `http://127.0.0.1:54321/api/v1`. */
  url: string;
  /** Scheme, host and port, e.g. `http://127.0.0.1:54321` (the admin API lives at `${origin}/__sandbox/...`). */
  origin: string;
  /** The dashboard page, e.g. `http://127.0.0.1:54321/` (the root URL; loopback only). */
  dashboard: string;
  /** The API key at start (it changes when rotated through the admin API). */
  apiKey: string;
  /** Saves state (when `stateFile` is set), stops every timer and closes all sockets. */
  close: () => Promise<void>;
}

/**
 * What the workflows in core/ need of a run, as small capabilities (gh's Factory and IOStreams, split by concern): a
 * run function declares the intersection of those it uses (`runBalance(ctx: Output & Service)`), so a test can drive
 * it with a hand-made object of just those members. Declared here so that core depends on interfaces below it, never
 * on the entry layer's class (`Context`, src/context.ts) that builds them (docs/architecture.md#layers).
 * `Capabilities` is all of them.
 */
import type { ApiClient } from '../api/client.js';
import type { Clock } from '../lib/time.js';
import type { Env } from '../lib/env.js';
import type { IO } from '../output/io.js';
import type { Printer } from '../output/printer.js';
import type { CompletionCacheStore } from '../store/cache.js';
import type { ConfigStore } from '../store/config-file.js';
import type { Settings } from './settings.js';

/** Global flags (docs/commands.md#global-flags), as commander parses them. */
export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  apiKeyFile?: string;
  output?: string;
  json?: boolean;
  color: boolean;
  quiet?: boolean;
  verbose?: boolean;
  requestTimeout?: string;
  input: boolean;
  sandbox?: boolean;
  ci?: boolean;
}

export interface ApiOptions {
  /** Epoch ms: the client never sleeps past it (wait --timeout). */
  deadline?: number | undefined;
  /**
   * A follow (wait, watch) reads from here on: it polls again after a read that gives up and says itself when it gives
   * up, so a read's notice of no answer names no time left of its own.
   */
  follow?: boolean | undefined;
}

/** What is printed: data on stdout, talk on stderr, everything redacted; long terminal output paged. */
export interface Output {
  readonly io: IO;
  readonly printer: Printer;
  /** Removes every secret this run knows of from `text`. */
  readonly redact: (text: string) => string;
  /** Adds a secret to redact from everything printed (a key typed at `auth login`). */
  addSecret: (secret: string) => void;
  /** Prints what `render` prints through the pager on a terminal. */
  paged: (render: (printer: Printer) => Promise<void> | void) => Promise<void>;
}

/** Asking a person, and showing that a wait is going on. */
export interface Prompts {
  /** Prompts are allowed (a terminal, outside CI, without --no-input). */
  readonly interactive: boolean;
  /** Runs `work` under a one-line spinner on a terminal (`say` changes its text; `shown` is false without one). */
  spin: <T>(text: string, work: (say: (text: string) => void, shown: boolean) => Promise<T>) => Promise<T>;
  /** Runs `work` with spinner texts handed to `show` (a live line already on screen) instead of a second spinner. */
  spinInto: <T>(text: string, show: (text: string) => void, work: () => Promise<T>) => Promise<T>;
}

/** The process this run is: its interrupts and its exit code. */
export interface Process {
  /** Aborted on Ctrl-C / SIGTERM. */
  readonly signal: AbortSignal;
  /** The words typed after `taskctl` (a hint may name the same command again with a flag added). */
  readonly typed: readonly string[];
  /** After the first Ctrl-C: calls `handler` on a second one instead of ending the process (`webhook listen`). */
  readonly onInterruptAgain: (handler: () => void) => void;
  /** A non-zero code to finish with without an error message; set it before printing the result. */
  exitCode: number;
  /**
   * The code the run ends with where it would end 0, settled now, before any output (a `--job` command that left lost
   * chunks out: 11): an `exitCode` of 0 set later (a wait's outcome) stays `code`; another code, or an error, replaces it.
   */
  endShort: (code: number) => void;
}

/** The world outside the program that tests replace: time, environment variables, randomness. */
export interface Runtime {
  readonly clock: Clock;
  readonly env: Env;
  readonly random: () => number;
}

/** State on disk: the config file and the completion cache. */
export interface Store {
  /** The completion cache of this account (task ids, services). */
  readonly cache: CompletionCacheStore;
  /** The config file, loaded on first use. */
  config: () => Promise<ConfigStore>;
  /** Points the completion cache at the configured account; its base URL, or undefined without a URL or key. */
  bindCacheAccount: () => Promise<string | undefined>;
}

/** The service this run talks to: the flags and settings that choose it, and the one API client. */
export interface Service {
  readonly globals: GlobalOptions;
  /** CI mode: `--ci` or the `CI` environment variable. */
  readonly ci: boolean;
  /** `--sandbox`: the service ends with this command, so no hint may name its tasks. */
  readonly ephemeralSandbox: boolean;
  settings: () => Promise<Settings>;
  apiSettings: () => Promise<Settings>;
  api: (options?: ApiOptions) => Promise<ApiClient>;
}

/** Every capability: what the entry layer's class builds, and what a command's run function may ask for. */
export type Capabilities = Output & Prompts & Process & Runtime & Store & Service;

/**
 * What the workflows in core/ (and report/) need of a run: the same shape as the entry layer's `Context` class
 * (src/context.ts), declared here so that core depends on an interface below it, never on the class above it
 * (docs/architecture.md#layers). `Context` implements it; tests pass the real class.
 */
import type { ApiClient } from '../api/client.js';
import type { Clock } from '../lib/time.js';
import type { Env } from '../lib/env.js';
import type { IO } from '../output/io.js';
import type { Printer } from '../output/printer.js';
import type { CompletionCacheStore } from '../store/cache.js';
import type { ConfigStore } from '../store/config.js';
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
}

export interface Context {
  readonly io: IO;
  readonly env: Env;
  readonly clock: Clock;
  /** Aborted on Ctrl-C / SIGTERM. */
  readonly signal: AbortSignal;
  /** After the first Ctrl-C: calls `handler` on a second one instead of ending the process (`webhook listen`). */
  readonly onInterruptAgain: (handler: () => void) => void;
  readonly random: () => number;
  readonly globals: GlobalOptions;
  /** CI mode: `--ci` or the `CI` environment variable. */
  readonly ci: boolean;
  /** `--sandbox`: the service ends with this command, so no hint may name its tasks. */
  readonly ephemeralSandbox: boolean;
  /** Prompts are allowed (a terminal, outside CI, without --no-input). */
  readonly interactive: boolean;
  /** A non-zero code to finish with without an error message; set it before printing the result. */
  exitCode: number;
  readonly printer: Printer;
  /** The completion cache of this account (task ids, services). */
  readonly cache: CompletionCacheStore;
  /** Removes every secret this run knows of from `text`. */
  readonly redact: (text: string) => string;
  /** Adds a secret to redact from everything printed (a key typed at `auth login`). */
  addSecret: (secret: string) => void;
  /** Points the completion cache at the configured account; its base URL, or undefined without a URL or key. */
  bindCacheAccount: () => Promise<string | undefined>;
  /** The config file, loaded on first use. */
  config: () => Promise<ConfigStore>;
  /** Runs `work` under a one-line spinner on a terminal (`say` changes its text); plain otherwise. */
  spin: <T>(text: string, work: (say: (text: string) => void) => Promise<T>) => Promise<T>;
  /** Runs `work` with spinner texts handed to `show` (a live line already on screen) instead of a second spinner. */
  spinInto: <T>(text: string, show: (text: string) => void, work: () => Promise<T>) => Promise<T>;
  /** Prints what `render` prints through the pager on a terminal. */
  paged: (render: (printer: Printer) => Promise<void> | void) => Promise<void>;
  settings: () => Promise<Settings>;
  apiSettings: () => Promise<Settings>;
  api: (options?: ApiOptions) => Promise<ApiClient>;
}

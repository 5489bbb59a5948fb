/**
 * What a command gets (gh's Factory): one object with the capabilities of core/capabilities.ts (output, prompts, process,
 * runtime, store, service), built lazily from IO, environment, clock and flags. It builds them and delegates the
 * work: the printer (output/run-printer.ts), the spinner line (output/spinner-slot.ts), the pager (output/pager.ts),
 * the key file (store/key-file.ts), a `--sandbox` service (core/sandbox-settings.ts). Commands never reach for
 * `process.*`; tests build a context with in-memory IO.
 */
import { isAbsolute } from 'node:path';
import type { Dispatcher } from 'undici';
import type { ApiClient } from './api/client.js';
import { AuthError, ExitCode, UsageError } from './errors.js';
import type { Clock } from './lib/time.js';
import { openConfig, type ConfigStore } from './store/config-file.js';
import { accountKey, CompletionCacheStore } from './store/cache.js';
import { cacheDirectory } from './store/cache-dir.js';
import { parsePositiveDuration } from './lib/duration.js';
import {
  checkProfileExists,
  keyRefusedHint,
  resolveProfileName,
  resolveSettings,
  type Settings,
} from './core/settings.js';
import { canRedraw, isCI, type Env, type IO } from './output/io.js';
import { createRedactor, type Redactor } from './lib/redact.js';
import { settleOutcome } from './output/stdout-guard.js';
import type { Printer } from './output/printer.js';
import type { Pager } from './output/pager.js';
import { createRunPrinter } from './output/run-printer.js';
import { SpinnerSlot } from './output/spinner-slot.js';
import { userAgent } from './version.js';
import { seenOnServerClock } from './core/server-time.js';
import type { ApiOptions, Capabilities, GlobalOptions } from './core/capabilities.js';

/** A wait longer than this is announced even with -q: a silent script would look hung. */
const QUIET_WAIT_NOTICE_MS = 5_000;

export interface Deps {
  io: IO;
  env: Env;
  clock: Clock;
  /** Aborted on Ctrl-C / SIGTERM. */
  signal: AbortSignal;
  /** After the first Ctrl-C: calls `handler` on a second one instead of ending the process (`webhook listen`). */
  onInterruptAgain?: (handler: () => void) => void;
  /** Random source for jitter; injectable for tests. */
  random?: () => number;
  /** The HTTP dispatcher every request goes through; tests inject undici's MockAgent. Default: one built from the
   * base URL and the proxy environment (src/api/dispatcher.ts). */
  dispatcher?: Dispatcher;
  /** Shows long terminal output a screen at a time (output/pager.ts); without it, output is printed as it is. */
  pager?: Pager;
}

export type { ApiOptions, GlobalOptions } from './core/capabilities.js';

export class Context implements Capabilities {
  readonly io: IO;
  readonly env: Env;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly onInterruptAgain: (handler: () => void) => void;
  readonly random: () => number;
  readonly globals: GlobalOptions;
  private readonly dispatcher: Dispatcher | undefined;
  private readonly pager: Pager | undefined;
  /** `auth login`, `balance`...: set by main, so that commands creating a profile may name a new one. */
  commandPath = '';
  /** The words typed after `taskctl`: set by main. */
  typed: readonly string[] = [];
  private outcome = 0;
  /** What a clean end (0) ends the run with instead: `endShort`. */
  private cleanEnd = 0;

  /**
   * Set by a command to finish with a non-zero code without an error message (e.g. `wait` outcomes). Set it before
   * printing the result: a reader of stdout that goes away meanwhile then ends the run with this code, not 0.
   */
  get exitCode(): number {
    return this.outcome;
  }

  set exitCode(code: number) {
    this.outcome = code === ExitCode.ok ? this.cleanEnd : code;
    settleOutcome(this.io.stdout, this.outcome);
  }

  endShort(code: number): void {
    this.cleanEnd = code;
    if (this.outcome === ExitCode.ok) this.exitCode = code;
  }

  private readonly secrets: string[] = [];
  private redactor: Redactor = (text) => text;
  private printerInstance: Printer | undefined;
  private configPromise: Promise<ConfigStore> | undefined;
  private settingsPromise: Promise<Settings> | undefined;
  private apiSettingsPromise: Promise<Settings> | undefined;
  private apiPromise: Promise<ApiClient> | undefined;
  /** The API client once made: the printer's ages read the service's clock through it. */
  private apiMade: ApiClient | undefined;
  /** Now on the service's clock, once its Date headers show it skewed (core/server-time.ts): what ages count from. */
  private readonly serviceNow = seenOnServerClock(
    () => this.apiMade?.serverClockBounds() ?? { low: undefined, high: undefined },
  );
  private readonly cleanups: Array<() => Promise<void> | void> = [];
  /** The run's one spinner line: shown after 300 ms, only for a person at a terminal (not in CI, json/ndjson, -q). */
  private readonly spinners: SpinnerSlot;

  constructor(deps: Deps, globals: GlobalOptions) {
    this.io = deps.io;
    this.env = deps.env;
    this.clock = deps.clock;
    this.signal = deps.signal;
    this.onInterruptAgain = deps.onInterruptAgain ?? (() => {});
    this.random = deps.random ?? Math.random;
    this.dispatcher = deps.dispatcher;
    this.pager = deps.pager;
    this.globals = globals;
    // Known before any setting is read: a refusal of an argument (the key pasted as a task id) is scrubbed too.
    const envKey = this.env.TASKCTL_API_KEY?.trim();
    if (envKey) this.addSecret(envKey);
    this.spinners = new SpinnerSlot({
      stream: this.io.stderr,
      clock: this.clock,
      redraw: canRedraw(this.io.stderr, this.env, this.ci),
      printer: () => this.printer,
    });
  }

  /** CI mode: `--ci` or the `CI` environment variable. No spinners, no prompts, timestamped progress lines. */
  get ci(): boolean {
    return this.globals.ci === true || isCI(this.env);
  }

  /** `--sandbox`: the service ends with this command, so no hint may name its tasks (sandboxAwareHint). */
  get ephemeralSandbox(): boolean {
    return this.globals.sandbox === true;
  }

  /** Prompts are allowed only on a terminal, outside CI, without --no-input. */
  get interactive(): boolean {
    return this.globals.input && !this.ci && this.io.stdin.isTTY === true && this.io.stderr.isTTY === true;
  }

  /** Every string printed passes through this: the key's literal value never reaches the screen or a log. */
  readonly redact = (text: string): string => this.redactor(text);

  addSecret(secret: string): void {
    this.secrets.push(secret);
    this.redactor = createRedactor(this.secrets);
  }

  private cacheInstance: CompletionCacheStore | undefined;

  /** Completion cache (services, recent task ids), refreshed by commands that fetched them anyway. */
  get cache(): CompletionCacheStore {
    // An unreadable cache is never a reason to fail: ignored, said with --verbose, rewritten by the next update.
    const note = (message: string) => {
      if (this.globals.verbose === true) this.io.stderr.write(`${this.redact(message)}\n`);
    };
    this.cacheInstance ??= new CompletionCacheStore(cacheDirectory(this.env), () => this.clock.now(), note);
    return this.cacheInstance;
  }

  /**
   * Binds the completion cache to this command's account from the settings alone (no client, no request), for TAB
   * completion on a cache hit; returns the API base URL, or undefined when no URL or key is configured.
   */
  async bindCacheAccount(): Promise<string | undefined> {
    const settings = await this.apiSettings();
    if (!settings.baseUrl || !settings.apiKey) return undefined;
    const { normaliseBaseUrl } = await import('./api/base-url.js');
    const baseUrl = normaliseBaseUrl(settings.baseUrl.value);
    this.cache.account = accountKey(baseUrl, settings.apiKey.value);
    return baseUrl;
  }

  onCleanup(fn: () => Promise<void> | void): void {
    this.cleanups.push(fn);
  }

  async cleanup(): Promise<void> {
    for (const fn of this.cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch {
        // Cleanup must not mask the command's own outcome.
      }
    }
  }

  /** The format asked for by flag, environment or profile (validated), without the TTY default. */
  private requestedFormat(): string | undefined {
    if (this.globals.json) return 'json';
    return this.globals.output ?? this.env.TASKCTL_OUTPUT;
  }

  get hasPrinter(): boolean {
    return this.printerInstance !== undefined;
  }

  get printer(): Printer {
    if (!this.printerInstance) throw new Error('printer used before setup()');
    return this.printerInstance;
  }

  /**
   * Builds the printer; `main` calls it before the command runs. Side-effect free: the output format comes from the
   * flags, the environment and the profile's `output`, and nothing else is resolved (no key file, no sandbox).
   */
  async setup(): Promise<void> {
    this.settingUp = true;
    try {
      await this.makePrinter();
    } finally {
      this.settingUp = false;
      // The config's warnings while the printer was being made (its profile's `output`): printed as every warning is,
      // wrapped and coloured, once the printer exists; plainly when it could not be made.
      const early = this.earlyWarnings.splice(0);
      for (const message of early) this.warn(message);
    }
  }

  private async makePrinter(): Promise<void> {
    this.printerInstance = await createRunPrinter({
      io: this.io,
      env: this.env,
      format: this.requestedFormat() ?? (await this.profileOutput()),
      noColor: !this.globals.color,
      quiet: this.globals.quiet === true,
      ci: this.ci,
      redact: this.redact,
      // A task's age (`3m ago`) is told on the service's clock, which stamped it: a skewed local clock does not age it.
      now: () => this.serviceNow(this.clock.now()),
      // A log line is stamped on this machine's clock: a CI log must line up with the runner's own stamps.
      stampNow: () => this.clock.now(),
      // A one-off --sandbox has its own hint rules (core/sandbox-hint.ts): its service is gone when a hint is read.
      account: this.globals.sandbox
        ? undefined
        : { profile: this.globals.profile, baseUrl: this.globals.baseUrl, apiKeyFile: this.globals.apiKeyFile },
      jobFile: await this.jobFiles(),
    });
  }

  /**
   * With a relative TASKCTL_STATE_DIR, the same variable names another state directory from another directory: a hint
   * then names a job by its journal's absolute path, not by its id (docs/behaviour.md#config-file).
   */
  private async jobFiles(): Promise<((id: string) => string | undefined) | undefined> {
    const named = this.env.TASKCTL_STATE_DIR;
    if (!named || isAbsolute(named)) return undefined;
    const { jobStore } = await import('./core/job/registry.js');
    const store = jobStore(this.env);
    return (id) => store.locate(id);
  }

  /** The profile's `output` setting. A broken config file is left to the command that needs it (`config path`). */
  private async profileOutput(): Promise<string | undefined> {
    try {
      const config = await this.config();
      return config.profile(resolveProfileName({ profile: this.globals.profile }, this.env).value).output;
    } catch {
      return undefined;
    }
  }

  /** Prints what `render` writes, through the pager when it is terminal output taller than the screen. */
  async paged(render: (printer: Printer) => Promise<void> | void): Promise<void> {
    const { printPaged } = await import('./output/pager.js');
    await printPaged(this.printer, this.io, this.pager, render);
  }

  spin<T>(text: string, work: (say: (text: string) => void, shown: boolean) => Promise<T>): Promise<T> {
    return this.spinners.spin(text, work);
  }

  spinInto<T>(text: string, show: (text: string) => void, work: () => Promise<T>): Promise<T> {
    return this.spinners.spinInto(text, show, work);
  }

  /** Warnings said while the printer was being made (setup reads the config for the format): printed by setup. */
  private readonly earlyWarnings: string[] = [];
  private settingUp = false;

  /** A warning through the printer; plain stderr, redacted, when it could not be made (a bad --output value). */
  private warn(message: string): void {
    if (this.printerInstance) this.printerInstance.warn(message);
    else this.io.stderr.write(`warning: ${this.redact(message)}\n`);
  }

  config(): Promise<ConfigStore> {
    this.configPromise ??= openConfig(this.env, (message) => {
      if (this.printerInstance === undefined && this.settingUp) this.earlyWarnings.push(message);
      else this.warn(message);
    });
    return this.configPromise;
  }

  /**
   * Flags > environment > profile > defaults. Reads the config file, and the key file (or stdin for
   * `--api-key-file -`) when one is given; never starts the sandbox (`apiSettings` does).
   */
  settings(): Promise<Settings> {
    this.settingsPromise ??= this.loadSettings();
    return this.settingsPromise;
  }

  /** The settings the API client uses: `settings()`, or with `--sandbox` a sandbox's URL and key (started on first call). */
  apiSettings(): Promise<Settings> {
    this.apiSettingsPromise ??= this.globals.sandbox ? this.sandboxSettings() : this.settings();
    return this.apiSettingsPromise;
  }

  private async loadSettings(): Promise<Settings> {
    const flags = {
      profile: this.globals.profile,
      baseUrl: this.globals.baseUrl,
      apiKeyFromFile: await this.keyFromFile(this.globals.apiKeyFile),
      output: this.requestedFormat(),
      requestTimeout: this.globals.requestTimeout,
    };
    const profileName = resolveProfileName(flags, this.env);
    const config = await this.config();
    checkProfileExists(profileName, config.profileNames(), this.commandPath);
    const settings = resolveSettings(flags, this.env, config.profile(profileName.value), profileName);
    if (settings.apiKey) this.addSecret(settings.apiKey.value);
    return settings;
  }

  private async sandboxSettings(): Promise<Settings> {
    const { startSandboxSettings } = await import('./core/sandbox-settings.js');
    const { settings, sandbox } = await startSandboxSettings(await this.settings(), this.clock);
    this.onCleanup(() => sandbox.close());
    this.addSecret(sandbox.apiKey);
    return settings;
  }

  /** `--api-key-file PATH` (`-` = stdin): read only when the settings are needed. */
  private async keyFromFile(path: string | undefined): Promise<{ key: string; path: string } | undefined> {
    if (!path) return undefined;
    const { readKeyFile } = await import('./store/key-file.js');
    return readKeyFile(path, this.io.stdin, this.signal);
  }

  /** The one API client of this invocation. Missing key → exit 4; missing base URL → exit 2; both with a hint. */
  async api(options: ApiOptions = {}): Promise<ApiClient> {
    this.apiPromise ??= this.createApi();
    const client = await this.apiPromise;
    this.apiMade = client;
    if (options.follow === true) this.spinners.follow();
    // One client (one connection pool, one rate limiter); a deadline is a view of it, e.g. the wait after create.
    return options.deadline !== undefined ? client.withDeadline(options.deadline) : client;
  }

  private async createApi(): Promise<ApiClient> {
    const settings = await this.apiSettings();
    if (!settings.baseUrl) {
      throw new UsageError(
        'no API base URL configured',
        'Run `taskctl auth login --base-url URL`, set TASKCTL_BASE_URL, or try the local sandbox with --sandbox.',
      );
    }
    if (!settings.apiKey) {
      throw new AuthError(
        'no API key configured',
        'Run `taskctl auth login`, set TASKCTL_API_KEY, pass --api-key-file, or try the local sandbox with --sandbox.',
      );
    }
    const { normaliseBaseUrl } = await import('./api/base-url.js');
    const { createApiClient } = await import('./api/client.js');
    const verbose = this.globals.verbose === true;
    const client = createApiClient({
      baseUrl: normaliseBaseUrl(settings.baseUrl.value),
      apiKey: settings.apiKey.value,
      authScheme: settings.authScheme.value,
      authHint: keyRefusedHint(settings.apiKey, settings.profile),
      userAgent: userAgent(),
      ...(settings.requestTimeout && {
        requestTimeoutMs: parsePositiveDuration(settings.requestTimeout.value, 'request-timeout'),
      }),
      clock: this.clock,
      random: this.random,
      signal: this.signal,
      ...(verbose && { trace: (line: string) => this.io.stderr.write(`${this.redact(line)}\n`) }),
      env: this.env,
      ...(this.dispatcher && { dispatcher: this.dispatcher }),
      onWait: (waitMs, message) => {
        // Under a spinner the wait counts down in its text; otherwise it is announced once, even with -q when it is
        // long enough to look like a hang (docs/behaviour.md#quiet).
        if (this.spinners.showing) this.spinners.countDown(waitMs, message);
        else if (waitMs > QUIET_WAIT_NOTICE_MS) this.printer.notice(message);
        else this.printer.info(message);
      },
      onResend: (message) => this.spinners.resending(message),
      // Under a spinner in its text; without one a line, once a run, even with -q (docs/behaviour.md#quiet); a wait's
      // live block says it itself.
      onNoAnswer: (waitedMs, givesUpAt, received) =>
        this.spinners.noAnswer(
          waitedMs,
          givesUpAt,
          (line) => this.printer.notice(line),
          () => this.printer.drawingLive(),
          received,
        ),
    });
    this.onCleanup(() => client.close());
    // From here the tasks this command sees are remembered for completion under its account.
    this.cache.bindAccount(client.baseUrl, settings.apiKey.value);
    return client;
  }
}

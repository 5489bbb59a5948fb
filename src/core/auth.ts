/** `taskctl auth login/status/logout`: a key read, checked with GET /balance, saved in or removed from the profile. */
import type { Output, Process, Prompts, Runtime, Service, Store } from './capabilities.js';
import { formatCount } from '../output/numbers.js';
import { isoSeconds } from '../output/times.js';
import { AuthError, CliError, DeclinedError, InterruptedError, RateLimitError, UsageError } from '../errors.js';
import { formatDuration } from '../lib/duration.js';
import { maskKey } from '../lib/redact.js';
import { readKeyStdin } from '../store/key-file.js';
import { idsOnly } from './quiet.js';

export interface LoginOptions {
  /** Read the key from stdin (also implied when stdin is piped). */
  withKey?: boolean;
}

async function readKey(
  ctx: Output & Prompts & Service & Pick<Process, 'signal'>,
  options: LoginOptions,
): Promise<string> {
  const settings = await ctx.settings();
  if (settings.apiKey?.source === 'flag') return settings.apiKey.value;
  const stdin = ctx.io.stdin;
  if (options.withKey || !stdin.isTTY) {
    if (stdin.isTTY)
      throw new UsageError(
        '--with-key reads the key from stdin, but stdin is a terminal',
        'Pipe it in: `echo "$KEY" | taskctl auth login --with-key`.',
      );
    const bytes = await readKeyStdin(
      stdin,
      ctx.signal,
      'the API key from stdin',
      'Pipe it in: `echo "$KEY" | taskctl auth login --with-key`.',
    );
    if (bytes === undefined)
      throw new UsageError(
        'stdin holds more than 64 KiB, which is no API key; stopped reading',
        'Pipe the key alone on one line: `echo "$KEY" | taskctl auth login --with-key`.',
      );
    const key = new TextDecoder().decode(bytes).split(/\r?\n/, 1)[0]?.trim() ?? '';
    if (!key)
      throw new UsageError(
        'no API key on stdin (its first line is empty); nothing was saved',
        'Pipe the key in on the first line: `echo "$KEY" | taskctl auth login --with-key`, or use --api-key-file PATH.',
      );
    return key;
  }
  if (!ctx.interactive)
    throw new UsageError(
      'no key given and prompting is off',
      'Pipe the key in with --with-key, or use --api-key-file PATH.',
    );
  const { promptHidden } = await import('../output/prompt.js');
  const answer = await promptHidden(stdin, ctx.io.stderr, 'API key (input hidden): ', { signal: ctx.signal });
  if (answer.kind === 'entered') return answer.value.trim();
  if (answer.kind === 'interrupted') throw new InterruptedError('cancelled at the key prompt; nothing was saved');
  // The end of the input is the person's decision, as at the cost confirmation (exit 13), not an interrupt.
  throw new DeclinedError(
    'No key given (the input ended): nothing was saved.',
    'Run `taskctl auth login` again and press Enter after the key, or pipe it in: `echo "$KEY" | taskctl auth login --with-key`.',
  );
}

export async function runLogin(
  ctx: Output & Prompts & Process & Runtime & Store & Service,
  options: LoginOptions,
): Promise<void> {
  const settings = await ctx.settings();
  if (!settings.baseUrl) {
    throw new UsageError('auth login needs the service URL', 'Pass it once: `taskctl auth login --base-url URL`.');
  }
  const key = await readKey(ctx, options);
  if (!key) throw new UsageError('the API key is empty', 'Copy the key from the dashboard and try again.');
  ctx.addSecret(key);
  settings.apiKey = { value: key, source: 'flag', origin: 'auth login' };
  const api = await ctx.api();
  let balance;
  try {
    balance = await api.getBalance();
  } catch (error) {
    if (error instanceof AuthError)
      throw new AuthError(
        'the service rejected this API key; nothing was saved',
        'Check the key in the dashboard (a regenerated key invalidates the old one).',
      );
    // Any other failure of the check (a host not reached, a 5xx, the rate limit): its own words, code and hint, and
    // that nothing was saved, as every other way a login ends without saving says. Its class kept (main.ts reads it).
    if (error instanceof CliError && !(error instanceof InterruptedError)) error.message += '; nothing was saved';
    throw error;
  }
  const { normaliseBaseUrl } = await import('../api/base-url.js');
  const profile = settings.profile.value;
  let config;
  try {
    config = await ctx.config();
    // One change of the file: the key and its base URL are saved together or not at all (never a profile's old key
    // beside a new base URL, which would send that key to the new host).
    await config.update(profile, { 'base-url': normaliseBaseUrl(settings.baseUrl.value), 'api-key': key });
  } catch (error) {
    throw notSaved(error);
  }
  ctx.printer.success(
    `Logged in to ${normaliseBaseUrl(settings.baseUrl.value)} (profile "${profile}", key ${maskKey(key)}, balance ${formatCount(balance.balance)} ${balance.currency}); saved in ${config.path}`,
  );
  if (ctx.env.TASKCTL_API_KEY && ctx.env.TASKCTL_API_KEY !== key)
    ctx.printer.warn('TASKCTL_API_KEY is set and takes precedence over the saved key.');
}

/**
 * A key the service accepted that the config file could not take (a full disk, a read-only directory, a held lock):
 * the store's error, its exit code and its advice, saying the key was fine and that nothing was saved (the key and the
 * base URL are one change of the file: docs/commands.md#taskctl-auth-loginstatuslogout).
 */
function notSaved(error: unknown): unknown {
  if (!(error instanceof CliError)) return error;
  return new CliError(
    `${error.message}; the service accepted the key, but nothing was saved`,
    error.exitCode,
    error.hint,
  );
}

/** Whether the key works, with the balance and rate-limit budget the check revealed. */
interface KeyCheck {
  /** Undefined when there is no key (or no base URL) to check. */
  works?: boolean;
  /**
   * The service refused the request for the rate limit (429). Whether it looked at the key first is not said (the
   * limit is per key, but a 429 may come before the check): the key is neither good nor bad yet.
   */
  rateLimited?: boolean;
  balance?: { balance: number; currency: string };
  budget?: { remaining: number; limit?: number; resetAtMs: number };
  problem?: CliError;
}

async function checkKey(ctx: Prompts & Service): Promise<KeyCheck> {
  try {
    const api = await ctx.api();
    const balance = await ctx.spin('checking the key', () => api.getBalance());
    const budget = api.rateLimiter.snapshot();
    return { works: true, balance, ...(budget && { budget }) };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    // A 429 says nothing certain of the key (it may come before the key is looked at): not known, never "no" (the
    // rate-limit hint sends people here); the window the refusal stated is the budget now. Exit 7, as the 429 is.
    if (error instanceof RateLimitError) {
      const budget = error.window && { remaining: 0, ...error.window };
      return { rateLimited: true, problem: error, ...(budget && { budget }) };
    }
    return { works: false, problem: error };
  }
}

export async function runStatus(ctx: Output & Prompts & Process & Runtime & Service): Promise<void> {
  // The key this invocation would use: with --sandbox, the sandbox's (status checks it, so it needs the API anyway).
  const settings = await ctx.apiSettings();
  const check: KeyCheck = settings.apiKey && settings.baseUrl ? await checkKey(ctx) : {};
  const { balance, budget } = check;
  const works = check.rateLimited
    ? 'not known now (rate-limited until the reset)'
    : check.works === undefined
      ? 'no key'
      : check.works
        ? 'yes'
        : `no: ${check.problem?.message ?? 'refused'}`;
  const left =
    budget && `${formatCount(budget.remaining)}/${budget.limit === undefined ? '?' : formatCount(budget.limit)}`;
  const resetsIn =
    check.rateLimited && budget ? ` (in ${formatDuration(Math.max(0, budget.resetAtMs - ctx.clock.now()))})` : '';
  const fields: Array<[string, string | undefined]> = [
    ['profile', settings.profile.value],
    ['base_url', settings.baseUrl?.value],
    ['base_url_source', settings.baseUrl?.origin],
    ['key', settings.apiKey ? maskKey(settings.apiKey.value) : undefined],
    ['key_source', settings.apiKey?.origin],
    ['key_works', works],
    ['balance', balance && `${formatCount(balance.balance)} ${balance.currency}`],
    ['rate_limit', budget && `${left} requests left, resets ${isoSeconds(budget.resetAtMs)}${resetsIn}`],
  ];
  const json = {
    profile: settings.profile.value,
    base_url: settings.baseUrl?.value ?? null,
    base_url_source: settings.baseUrl?.origin ?? null,
    key: settings.apiKey ? maskKey(settings.apiKey.value) : null,
    key_source: settings.apiKey?.origin ?? null,
    // null while rate-limited: not known either way.
    key_works: check.rateLimited ? null : (check.works ?? false),
    key_error: check.problem?.message ?? (settings.apiKey ? null : 'no key'),
    balance: balance?.balance ?? null,
    currency: balance?.currency ?? null,
    rate_limit: budget
      ? { remaining: budget.remaining, limit: budget.limit ?? null, resets_at: isoSeconds(budget.resetAtMs) }
      : null,
    rate_limited: check.rateLimited ?? false,
  };
  // csv and tsv keep the json's keys and types (docs/behaviour.md#types-kept): every column, its nested rate limit
  // flattened, empty for null; the labels and sentences above are a terminal's.
  const { rate_limit: limit, rate_limited: rateLimited, ...flat } = json;
  const machine: Array<[string, string | number | boolean | null]> = Object.entries({
    ...flat,
    rate_limit_remaining: limit?.remaining ?? null,
    rate_limit_limit: limit?.limit ?? null,
    rate_limit_resets_at: limit?.resets_at ?? null,
    rate_limited: rateLimited,
  });
  const format = ctx.printer.format;
  // -q alone: nothing on stdout, the exit code says it (0: the key works; 4: no key or refused; 7: rate-limited), errors on stderr.
  if (!idsOnly(ctx.globals))
    ctx.printer.detail(
      format === 'csv' || format === 'tsv'
        ? machine
        : fields.filter((field): field is [string, string] => field[1] !== undefined),
      json,
    );
  if (!settings.apiKey) {
    throw new AuthError(
      'not logged in',
      'Run `taskctl auth login --base-url URL`, set TASKCTL_API_KEY, or use --sandbox.',
    );
  }
  if (check.problem) ctx.exitCode = check.problem.exitCode;
}

export async function runLogout(ctx: Output & Runtime & Store & Service): Promise<void> {
  const config = await ctx.config();
  const settings = await ctx.settings();
  const profile = settings.profile.value;
  if (!config.profile(profile)['api-key']) {
    ctx.printer.info(`no API key is stored for profile "${profile}"`);
  } else {
    await config.unset(profile, 'api-key');
    ctx.printer.success(`Removed the API key of profile "${profile}" from ${config.path}`);
  }
  if (ctx.env.TASKCTL_API_KEY) ctx.printer.warn('TASKCTL_API_KEY is still set in this environment.');
}

import { Option, type Command } from 'commander';
import type { ApiClient } from '../api/client.js';
import type { Service, Task } from '../api/schemas.js';
import type { Context } from '../context.js';
import {
  BalanceError,
  CliError,
  CreateUnknownError,
  DeclinedError,
  ExitCode,
  InputError,
  InterruptedError,
  NotFoundError,
  UsageError,
} from '../errors.js';
import { formatDuration } from '../output/durations.js';
import { counted, formatCount } from '../core/items/clean.js';
import type { ItemFormat, ItemSource, NormalisedItems } from '../core/items/index.js';
import { examples, type RunAction } from './help-text.js';
import type { MatchResult, Snapshot } from '../core/reconcile.js';
import { collect, duration, nonNegativeInt, positiveInt } from './parsers.js';
import { taskColumns } from './task-columns.js';
import { addWaitOptions, waitForTasks, type WaitOptions } from './wait.js';
import { checkReportTargets } from '../report/write.js';
import { neutralise } from '../output/sanitize.js';

export interface CreateOptions extends SubmitOptions {
  file?: string[];
  format?: ItemFormat;
  column?: string;
  skipInvalid?: boolean;
  keepDuplicates?: boolean;
  /** Commander's `--no-validate`: false sends the items as read, without per-service checks or normalisation. */
  validate?: boolean;
}

/** Prices are fetched with GET /services and reused for this long (one request saved per create in a loop). */
const PRICE_CACHE_MS = 5 * 60_000;
/** How long the last reconciliation scan may take past the window's end. */
const RECONCILE_SCAN_GRACE_MS = 2_000;
/** Time allowed for the task listing taken before each POST (both tries together). */
const SNAPSHOT_BUDGET_MS = 1000;

/** The spending flags `create` and `retry` share (submitItems reads them). */
export function addSpendOptions(command: Command): Command {
  return command
    .option('--max-cost <coins>', 'refuse (exit 6) when the estimate is above this', nonNegativeInt)
    .option('-y, --yes', 'do not ask for confirmation above the confirm-above setting')
    .option('--chunk-size <n>', 'split into several tasks of at most n items, created in order', positiveInt());
}

export function registerCreate(program: Command, run: RunAction): void {
  const command = program
    .command('create')
    .description('create a task: a service plus items from arguments, files (-f) or piped stdin')
    .argument('<service>', 'service id (see `taskctl services`)')
    .argument('[items...]', 'items; when none are given and no -f, items are read from stdin')
    .option('-f, --file <path>', 'read items from a file (- = stdin); repeatable', collect)
    .addOption(
      new Option('--format <format>', 'item file format')
        .choices(['lines', 'json', 'ndjson', 'csv'])
        .default(undefined, 'by extension, else lines'),
    )
    .option('--column <name>', 'csv column or json property holding the item')
    .option('--skip-invalid', 'drop invalid items with a warning instead of refusing (exit 3)')
    .option(
      '--no-validate',
      'send items as read (edge spaces trimmed), without per-service checks, case folding or punycode',
    )
    .option('--keep-duplicates', 'send duplicate items (they are removed by default)')
    .option('--dry-run', 'validate and price the items, show the balance after; create nothing')
    .option(
      '--reuse-window <duration>',
      'reuse a task with the same service and items created within this window (e.g. 1h); never a failed one',
      duration,
    )
    .option('--wait', 'then wait for the task(s) like `taskctl wait`');
  addSpendOptions(command);
  addWaitOptions(command);
  command
    .addHelpText(
      'after',
      examples([
        'taskctl create domain_check_availability example.com example.org',
        'taskctl create domain_check_availability -f domains.txt --dry-run',
        'cut -d, -f1 leads.csv | taskctl create domain_check_availability -q',
        'taskctl create fanpage_extract_contact -f pages.csv --column url --max-cost 50',
        'taskctl create domain_check_availability -f big.txt --chunk-size 5000 --wait',
        'taskctl create domain_check_availability -f big.txt --reuse-window 6h -y',
        'taskctl create domain_check_availability Example.COM --no-validate',
      ]) +
        '\nItems: UTF-8 or UTF-16 with BOM; blank lines and # comments are skipped; duplicates removed.\n' +
        'Output: the created task(s) (tsv: id, service, status, total_items, cost, created_at, finished_at); -q prints ids only.\n',
    )
    .action((service: string, items: string[], options: CreateOptions, cmd: Command) =>
      run(cmd, (ctx) => runCreate(ctx, service, items, options)),
    );
}

function itemSources(ctx: Context, args: string[], files: string[] | undefined): ItemSource[] {
  const sources: ItemSource[] = [];
  if (args.length > 0) sources.push({ kind: 'args', values: args });
  const stdinFiles = (files ?? []).filter((f) => f === '-').length;
  if (stdinFiles > 1) throw new UsageError('-f - (stdin) can be given only once');
  for (const file of files ?? []) {
    sources.push(
      file === '-'
        ? { kind: 'stdin', stream: ctx.io.stdin, isTTY: ctx.io.stdin.isTTY === true }
        : { kind: 'file', path: file },
    );
  }
  if (sources.length === 0) {
    if (ctx.io.stdin.isTTY) {
      throw new UsageError(
        'no items given',
        'Pass items as arguments, use -f FILE, or pipe them in: `cat domains.txt | taskctl create SERVICE`.',
      );
    }
    sources.push({ kind: 'stdin', stream: ctx.io.stdin, isTTY: false });
  }
  if (ctx.globals.apiKeyFile === '-' && sources.some((s) => s.kind === 'stdin')) {
    throw new UsageError(
      'stdin cannot carry both the API key (--api-key-file -) and the items',
      'Read the items from a file with -f, or the key from a file.',
    );
  }
  return sources;
}

/** Items read, validated, deduplicated: what will be sent, and what validation changed. Nothing touches the network. */
async function prepareItems(
  ctx: Context,
  service: string,
  args: string[],
  options: CreateOptions,
): Promise<{ items: string[]; normalised: NormalisedItems }> {
  const { readItems, validateItems, dedupeItems, formatInvalidReport } = await import('../core/items/index.js');
  const read = await readItems(itemSources(ctx, args, options.file), {
    format: options.format,
    column: options.column,
  });
  const { valid, invalid, normalised } =
    options.validate === false
      ? { valid: read.items, invalid: [], normalised: { count: 0, first: [] } }
      : validateItems(service, read.items, read.where);
  if (invalid.length > 0) {
    const report = formatInvalidReport(invalid);
    if (!options.skipInvalid) {
      throw new InputError(
        `${counted(invalid.length, 'invalid item')}; nothing was sent:\n${report.join('\n')}`,
        'Fix them, or pass --skip-invalid to drop them (or --no-validate to send them as written).',
      );
    }
    ctx.printer.warn(`skipping ${counted(invalid.length, 'invalid item')}:\n${report.join('\n')}`);
  }
  if (valid.length === 0) throw new InputError('no valid items left to send; nothing was sent');
  if (normalised.count > 0) {
    const first = normalised.first[0];
    ctx.printer.info(
      `normalised ${counted(normalised.count, 'item')}` +
        (first ? ` (e.g. ${JSON.stringify(first.item)} → ${JSON.stringify(first.sent)})` : '') +
        '; --no-validate sends them as written',
    );
  }
  if (options.keepDuplicates) return { items: valid, normalised };
  const { unique, duplicates } = dedupeItems(valid);
  if (duplicates > 0)
    ctx.printer.info(`removed ${counted(duplicates, 'duplicate item')} (--keep-duplicates sends them)`);
  return { items: unique, normalised };
}

/**
 * Price per item, from GET /services or, when the price only informs (no --max-cost, no prompt), a short-lived local
 * cache. Unknown service → exit 5 before anything is sent.
 */
async function pricePerItem(ctx: Context, api: ApiClient, service: string, guardsMoney: boolean): Promise<number> {
  const cached = guardsMoney ? undefined : ctx.cache.freshPrices(PRICE_CACHE_MS, api.baseUrl);
  if (cached?.[service] !== undefined) return cached[service];
  const services: Service[] = await api.listServices();
  ctx.cache.rememberServices(services, api.baseUrl);
  const found = services.find((s) => s.service === service);
  if (!found) {
    const close = services
      .map((s) => s.service)
      .filter((name) => name.includes(service) || service.includes(name.split('_')[0] ?? name));
    throw new NotFoundError(
      `unknown service "${neutralise(service)}"`,
      close.length > 0
        ? `Did you mean ${close.join(', ')}? See \`taskctl services\`.`
        : 'See `taskctl services` for the list.',
    );
  }
  return found.pricing;
}

/** One service's items to send (a create has one; a retry has one per service). */
export interface Batch {
  service: string;
  items: string[];
}

/** The options the shared pipeline reads (create's and retry's common flags). */
export interface SubmitOptions extends Partial<WaitOptions> {
  dryRun?: boolean;
  /** Refuse (exit 6, nothing sent) when the estimate is above this many coins. */
  maxCost?: number;
  yes?: boolean;
  /** Split into tasks of at most this many items, created in order. */
  chunkSize?: number;
  /** Reuse a task created within this many ms with the same service and items, instead of paying again. */
  reuseWindow?: number | undefined;
  /** Continue like `taskctl wait` on the new task(s). */
  wait?: boolean;
}

export interface SubmitContext {
  /** The prompt's first word: `Create`, `Retry`. */
  verb: string;
  /** What validation changed (create only): reported by --dry-run. */
  normalised?: NormalisedItems;
}

interface PricedBatch extends Batch {
  price: number;
  estimate: number;
  chunks: string[][];
}

/**
 * The one pipeline behind `create` and `retry`: price, --dry-run, --max-cost, confirmation, chunks, exactly-once
 * creation (or --reuse-window reuse), the summary, then --wait. Items are sent exactly as given.
 */
export async function submitItems(
  ctx: Context,
  batches: readonly Batch[],
  options: SubmitOptions,
  about: SubmitContext,
): Promise<void> {
  checkReportTargets(options.report);
  const { planChunks } = await import('../core/items/index.js');
  const api = await ctx.api();
  const priced: PricedBatch[] = [];
  // A price that --max-cost or a confirmation relies on is read from the server now, never from the cache.
  const guardsMoney = options.maxCost !== undefined || (ctx.interactive && options.yes !== true);
  for (const batch of batches) {
    const price = await pricePerItem(ctx, api, batch.service, guardsMoney);
    const chunks = planChunks(batch.items, options.chunkSize ?? batch.items.length);
    priced.push({ ...batch, price, estimate: price * batch.items.length, chunks });
  }
  if (options.dryRun) return dryRun(ctx, api, priced, about.normalised);
  await confirmCost(ctx, api, priced, options, about.verb);

  const chunks = priced.flatMap((batch) => batch.chunks.map((items) => ({ service: batch.service, items })));
  const created = await createChunks(ctx, api, chunks, options, priced.length === 1);
  ctx.printer.success(summary(created));
  warnAboveMaxCost(ctx, created, options.maxCost);
  const short = warnDroppedItems(ctx, created);
  if (options.wait) {
    await waitForTasks(
      ctx,
      created.map((c) => c.task.id),
      options as WaitOptions,
    );
    // Items the server never took cannot have completed: however the tasks ended, that is not a clean success.
    if (short && ctx.exitCode === ExitCode.ok) ctx.exitCode = ExitCode.itemsFailed;
  }
}

/** Tasks that hold fewer items than were sent (api-spec: total_items is the number submitted); true if any. */
function warnDroppedItems(ctx: Context, outcomes: readonly Outcome[]): boolean {
  let any = false;
  for (const { task, how, items } of outcomes) {
    if (how === 'reused' || task.total_items >= items) continue;
    any = true;
    const dropped = items - task.total_items;
    ctx.printer.warn(
      `task ${task.id} holds ${formatCount(task.total_items)} of the ${counted(items, 'item')} sent: ${counted(dropped, 'item')} ${dropped === 1 ? 'was' : 'were'} dropped by the server`,
    );
  }
  return any;
}

export async function runCreate(ctx: Context, service: string, args: string[], options: CreateOptions): Promise<void> {
  const { items, normalised } = await prepareItems(ctx, service, args, options);
  await submitItems(ctx, [{ service, items }], options, { verb: 'Create', normalised });
}

/**
 * What the server charged above --max-cost, when its price changed between the estimate and the create. A warning, not
 * an error: the tasks exist and are paid for, and a failure code would invite a script to create (and pay) again.
 */
function warnAboveMaxCost(ctx: Context, outcomes: readonly Outcome[], maxCost: number | undefined): void {
  const paid = outcomes.filter((o) => o.how !== 'reused');
  const charged = paid.reduce((sum, o) => sum + o.task.cost, 0);
  if (maxCost === undefined || charged <= maxCost) return;
  const what =
    paid.length === 1 && paid[0] ? `task ${paid[0].task.id}` : `tasks ${paid.map((o) => o.task.id).join(', ')}`;
  ctx.printer.warn(
    `${what} cost ${counted(charged, 'coin')}, above --max-cost ${formatCount(maxCost)} (the price changed after the estimate)`,
  );
}

/** `task 41 for 3 items, 15 coins; reused task 36 for 2 items (no coins spent)`: only what was paid for costs coins. */
function summary(outcomes: readonly Outcome[]): string {
  const paid = outcomes.filter((o) => o.how !== 'reused');
  const reused = outcomes.filter((o) => o.how === 'reused');
  const tasks = (list: readonly Outcome[]) =>
    list.length === 1 && list[0] ? `task ${list[0].task.id}` : `${list.length} tasks`;
  const items = (list: readonly Outcome[]) =>
    counted(
      list.reduce((sum, o) => sum + o.items, 0),
      'item',
    );
  const parts: string[] = [];
  if (paid.length > 0) {
    const recovered = paid.filter((o) => o.how === 'recovered').map((o) => o.task.id);
    parts.push(
      `${tasks(paid)} for ${items(paid)}, ${counted(
        paid.reduce((sum, o) => sum + o.task.cost, 0),
        'coin',
      )}` + (recovered.length > 0 ? ` (recovered: ${recovered.join(', ')})` : ''),
    );
  }
  if (reused.length > 0) {
    const ids = reused.map((o) => o.task.id).join(', ');
    parts.push(`reused ${reused.length === 1 ? 'task' : 'tasks'} ${ids} for ${items(reused)} (no coins spent)`);
  }
  return parts.join('; ');
}

async function confirmCost(
  ctx: Context,
  api: ApiClient,
  batches: readonly PricedBatch[],
  options: SubmitOptions,
  verb: string,
): Promise<void> {
  const estimate = batches.reduce((sum, b) => sum + b.estimate, 0);
  if (options.maxCost !== undefined && estimate > options.maxCost) {
    throw new BalanceError(
      `the estimate is ${counted(estimate, 'coin')}, above --max-cost ${formatCount(options.maxCost)}; nothing was created`,
      'Raise --max-cost, or send fewer items.',
    );
  }
  const { confirmAbove } = await ctx.settings();
  if (options.yes || !ctx.interactive || estimate < confirmAbove.value) return;
  // The person deciding sees what it leaves them with (one GET /balance, only when asking).
  const balance = await api.getBalance();
  const count = batches.reduce((sum, b) => sum + b.items.length, 0);
  const [only] = batches;
  const what =
    batches.length === 1 && only
      ? `${only.service} for ${counted(count, 'item')}`
      : `${counted(count, 'item')} (${batches.map((b) => `${b.service}: ${formatCount(b.items.length)}`).join(', ')})`;
  const { confirm } = await import('../output/prompt.js');
  const answer = await confirm(
    ctx.io.stdin,
    ctx.io.stderr,
    `${verb} ${what}: ${formatCount(estimate)} ${balance.currency} (balance ${formatCount(balance.balance)} → ${formatCount(balance.balance - estimate)})?`,
    { signal: ctx.signal },
  );
  if (answer === 'yes') return;
  if (answer === 'interrupted') throw new InterruptedError('cancelled at the confirmation; nothing was created');
  throw new DeclinedError(
    answer === 'closed' ? 'no answer (the input ended); nothing was created' : 'declined; nothing was created',
    '--yes skips the question; the confirm-above setting sets when it is asked.',
  );
}

async function dryRun(
  ctx: Context,
  api: ApiClient,
  batches: readonly PricedBatch[],
  normalised: NormalisedItems | undefined,
): Promise<void> {
  const balance = await api.getBalance();
  let after = balance.balance;
  const results = batches.map((batch) => {
    after -= batch.estimate;
    return {
      service: batch.service,
      items: batch.items.length,
      tasks: batch.chunks.length,
      price_per_item: batch.price,
      estimate: batch.estimate,
      balance: balance.balance,
      balance_after: after,
      currency: balance.currency,
      ...(normalised ? { normalised: normalised.count } : {}),
    };
  });
  // Several services (a retry): -o json is one array, not several documents.
  if (results.length > 1 && ctx.printer.format === 'json') ctx.printer.json(results);
  else {
    for (const result of results) {
      // JSON keeps the original text of the first few normalised items ({item, sent}); the count says how many in all.
      ctx.printer.detail(Object.entries(result), {
        ...result,
        ...(normalised ? { normalised_examples: normalised.first } : {}),
      });
    }
  }
  if (after < 0) {
    const estimate = balance.balance - after;
    throw new BalanceError(
      `dry run: the balance (${balance.balance} ${balance.currency}) does not cover the estimate (${estimate}); nothing was created`,
    );
  }
  ctx.printer.info('dry run: nothing was created');
}

/** `items`: how many items this task was sent with (the chunk's size). */
interface Outcome {
  task: Task;
  how: 'created' | 'recovered' | 'reused';
  items: number;
}

function listHint(service: string): string {
  return `Check before re-running: taskctl list --service ${service} --per-page 100 (or re-run with --reuse-window 1h to reuse it).`;
}

/**
 * Creates the chunks in order, printing each as it is created; a failure or Ctrl-C part-way names the tasks already
 * created. Stdout is held (see output/stdout-guard.ts): when it fails (a closed pipe, a full disk), the create in
 * flight finishes, no further chunk is started, every task created is named on stderr, and the exit code is 1.
 */
async function createChunks(
  ctx: Context,
  api: ApiClient,
  chunks: readonly Batch[],
  options: SubmitOptions,
  oneService: boolean,
): Promise<Outcome[]> {
  const { holdOutput } = await import('../output/stdout-guard.js');
  const hold = holdOutput(ctx.io.stdout);
  const outcomes: Outcome[] = [];
  const quiet = ctx.globals.quiet === true;
  // With --wait the final state is printed by the wait; printing the pending task first would list it twice.
  const out =
    quiet || options.wait ? undefined : ctx.printer.stream(taskColumns(ctx.printer.paintStatus), (task: Task) => task);
  // -o json is the task itself when only one task can result (one service, no --chunk-size), else an array.
  const singleObject =
    out !== undefined && oneService && options.chunkSize === undefined && ctx.printer.format === 'json';
  const createdSoFar = () =>
    `created ${outcomes.length} of ${counted(chunks.length, 'task')}` +
    (outcomes.length > 0 ? `: ${outcomes.map((o) => o.task.id).join(' ')}` : '');
  let service = chunks[0]?.service ?? '';
  try {
    try {
      for (const [index, chunk] of chunks.entries()) {
        // The output is gone (known once the writes so far have settled): start nothing new.
        if (index > 0 && (await hold.settle())) break;
        service = chunk.service;
        const what = chunks.length === 1 ? 'the task' : `task ${index + 1} of ${chunks.length}`;
        const outcome = await createOne(ctx, api, chunk, options, new Set(outcomes.map((o) => o.task.id)), what);
        outcomes.push(outcome);
        ctx.cache.rememberTasks([outcome.task]);
        if (quiet) ctx.printer.line(String(outcome.task.id));
        else if (out && !singleObject) out.write([outcome.task]);
      }
    } catch (error) {
      if (out && !singleObject) await out.end();
      const failure =
        error instanceof CliError
          ? error
          : ctx.signal.aborted
            ? new InterruptedError('interrupted', listHint(service))
            : undefined;
      if (!failure) throw error;
      if (outcomes.length === 0 && failure === error) throw error;
      throw new CliError(`${failure.message}\n${createdSoFar()} before that`, failure.exitCode, failure.hint);
    }
    const first = outcomes[0];
    if (singleObject && first) ctx.printer.json(first.task);
    else if (out) await out.end();
    const lost = await hold.settle();
    if (lost) {
      const stopped = outcomes.length < chunks.length ? '; no further task was started' : '';
      throw new CliError(
        `cannot write the output (${lost.code ?? lost.message}): ${createdSoFar()}${stopped}`,
        ExitCode.unexpected,
        `The ids above may not have been printed. ${listHint(service)}`,
      );
    }
    return outcomes;
  } finally {
    hold.release();
  }
}

/** Ctrl-C: the abort becomes a message saying what may exist; other errors pass through. */
function interrupted(ctx: Context, error: unknown, message: string, hint: string): unknown {
  return ctx.signal.aborted && !(error instanceof CliError) ? new InterruptedError(message, hint) : error;
}

async function createOne(
  ctx: Context,
  api: ApiClient,
  { service, items }: Batch,
  options: SubmitOptions,
  exclude: Set<number>,
  what: string,
): Promise<Outcome> {
  const reconcile = await import('../core/reconcile.js');
  const match = { service, count: items.length };
  let before: Snapshot;
  try {
    if (options.reuseWindow !== undefined) {
      const reuse = await reconcile.findReusableTask(
        api,
        {
          service,
          items,
          createdAfter: ctx.clock.now() - options.reuseWindow,
          exclude,
          allowItemFailures: options.allowItemFailures === true,
        },
        ctx.signal,
      );
      if (reuse.match.kind === 'found') {
        const task = reuse.match.task;
        ctx.printer.info(
          `reusing task ${task.id}: same service and items, ${task.status}, created ${task.created_at} (within --reuse-window ${formatDuration(options.reuseWindow)})`,
        );
        return { task, how: 'reused', items: items.length };
      }
      before = reuse.seen;
    } else {
      // Insurance, not a gate: a slow list must not hold the create up (a lost answer then ends in exit 9).
      const budgeted = api.withDeadline(ctx.clock.now() + SNAPSHOT_BUDGET_MS);
      const snapshot = () => reconcile.takeSnapshot(budgeted, match, ctx.clock, ctx.signal);
      before = await snapshot()
        .catch((error: unknown) => {
          if (ctx.signal.aborted) throw error;
          return snapshot(); // an unreadable 2xx is not retried by the client: one more try
        })
        .catch((error: unknown): Snapshot => {
          if (ctx.signal.aborted) throw error;
          // No evidence of what existed: the create goes ahead, and a lost answer can only end in exit 9.
          return { ids: new Set<number>(), complete: false };
        });
    }
  } catch (error) {
    throw interrupted(
      ctx,
      error,
      `interrupted before sending ${what}: nothing was created for it`,
      `Re-run the same command to create it.`,
    );
  }
  const { AmbiguousCreateError } = await import('../api/client.js');
  const post = { sent: false };
  try {
    const task = await api.createTask({ service, items }, () => (post.sent = true));
    return { task, how: 'created', items: items.length };
  } catch (error) {
    // Ctrl-C while the POST waited for the rate limit: it never left, so nothing can have been created.
    if (ctx.signal.aborted && !post.sent) {
      throw new InterruptedError(
        `interrupted before sending ${what}: nothing was created for it`,
        'Re-run the same command to create it.',
      );
    }
    if (ctx.signal.aborted) {
      throw new InterruptedError(
        `interrupted while creating a ${service} task for ${counted(items.length, 'item')}: it may have been created`,
        listHint(service),
      );
    }
    if (!(error instanceof AmbiguousCreateError)) throw error;
    const attempt = { service, items, sentAtMs: error.sentAtMs, before, exclude };
    const failedAtMs = ctx.clock.now();
    const windowMs = reconcile.reconcileWindowMs({ sentAtMs: error.sentAtMs, failedAtMs });
    ctx.printer.warn(`${error.message}; checking the task list for it (up to ${formatDuration(windowMs)})…`);
    let result: MatchResult;
    try {
      const { errorCode, TIMEOUT_CODES, DEADLINE_CODE } = await import('../api/retry.js');
      const code = errorCode(error.cause);
      const timedOut = code !== undefined && (TIMEOUT_CODES.has(code) || code === DEADLINE_CODE);
      // Each scan's reads are retried by the client; the deadline keeps those retries inside the window (with a short
      // grace for the last scan), so a list that keeps failing cannot stretch 10 s into 20.
      const scans = api.withDeadline(failedAtMs + windowMs + RECONCILE_SCAN_GRACE_MS);
      result = await reconcile.reconcileCreate(scans, {
        ...attempt,
        failedAtMs,
        timedOut,
        clock: ctx.clock,
        signal: ctx.signal,
      });
    } catch (reason) {
      throw interrupted(
        ctx,
        reason,
        `interrupted while checking whether ${what} was created (${service}, ${counted(items.length, 'item')}): it may have been created`,
        listHint(service),
      );
    }
    if (result.kind === 'found') {
      ctx.printer.warn(
        `recovered: task ${result.task.id} was created by this request (the response was lost; it is the only matching task that did not exist before the request was sent)`,
      );
      return { task: result.task, how: 'recovered', items: items.length };
    }
    const sentAt = new Date(error.sentAtMs).toISOString();
    const found =
      result.kind === 'ambiguous'
        ? `several new tasks match (${result.ids.join(', ')}): at most one of them is this request's`
        : result.kind === 'unproven'
          ? `task ${result.ids.join(', ')} matches, but the task list could not be read in full before sending, so it may be an earlier identical task`
          : result.kind === 'unread'
            ? 'the task list could not be read to find out'
            : 'no new matching task was found';
    throw new CreateUnknownError(
      `the create request may have created a task, and ${found}: ${service}, ${counted(items.length, 'item')}, sent ${sentAt}`,
      listHint(service),
    );
  }
}

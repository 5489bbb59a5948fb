/**
 * `taskctl webhook listen`: the receiver (webhook/listener.ts) started with the run's key, settings and printer, wired
 * to the sandbox (webhook-wiring.ts), the optional catch-up (webhook/catch-up.ts), then Ctrl-C: the sandbox's URL put
 * back, then finish the events in hand, or abandon them on a second one.
 */
import { AuthError, CliError, ExitCode, InterruptedError, UsageError, systemErrorWords } from '../errors.js';
import { parseTaskId } from '../lib/task-id.js';
import { counted } from '../output/plural.js';
import { eventPrinter } from '../webhook/event-printer.js';
import type { Output, Process, Runtime, Service } from './capabilities.js';
import { wireListener, type Unwire } from './webhook-wiring.js';
import { serviceNow } from './server-time.js';
import { sandboxAwareHint } from './sandbox-hint.js';

export interface ListenOptions {
  port: number;
  host: string;
  path: string;
  forwardTo?: string;
  exec?: string;
  execConcurrency: number;
  queue: number;
  maxBody: number;
  /** `--no-dedupe` sets it false. */
  dedupe: boolean;
  spool?: string;
  catchUp?: number;
  catchUpTask?: string[];
  /** `--no-wire` sets it false: the sandbox's webhook URL is left alone. */
  wire: boolean;
}

/** Output not yet written beyond this (stdout or stderr not being read) makes the listener answer 503. */
const OUTPUT_BACKLOG_BYTES = 1024 * 1024;

/** Bytes written but not yet taken by the reader (a pipe nobody reads grows it); 0 for streams that do not say. */
function backlog(stream: unknown): number {
  const length = (stream as { writableLength?: unknown }).writableLength;
  return typeof length === 'number' ? length : 0;
}

async function requireKey(ctx: Service): Promise<string> {
  const settings = await ctx.settings();
  if (!settings.apiKey) {
    throw new AuthError(
      'no API key configured: the listener verifies X-Webhook-Signature against it',
      'Run `taskctl auth login`, set TASKCTL_API_KEY, or pass --api-key-file.',
    );
  }
  return settings.apiKey.value;
}

export async function runListen(ctx: Output & Process & Runtime & Service, options: ListenOptions): Promise<void> {
  if (!options.path.startsWith('/')) throw new UsageError(`--path must start with / (got "${options.path}")`);
  const catchUpIds = (options.catchUpTask ?? []).map((id) => parseTaskId(id));
  const apiKey = await requireKey(ctx);
  const { startWebhookListener } = await import('../webhook/listener.js');
  const events = eventPrinter(ctx);
  // stdout held: a reader gone away does not end the process under the listener. The event whose print failed gets a
  // 500 (the service delivers it again), and the listener stops as at Ctrl-C, putting the sandbox's URL back.
  const { holdOutput } = await import('../output/stdout-guard.js');
  const hold = holdOutput(ctx.io.stdout);
  const outputLost = new AbortController();
  const listener = await startWebhookListener({
    port: options.port,
    host: options.host,
    path: options.path,
    apiKey,
    forwardTo: options.forwardTo,
    exec: options.exec,
    execConcurrency: options.execConcurrency,
    queue: options.queue,
    maxBody: options.maxBody,
    dedupe: options.dedupe,
    spool: options.spool,
    env: ctx.env,
    clock: ctx.clock,
    onEvent: (received, note) => events.print(received, note),
    written: async () => {
      const lost = await hold.settle();
      if (lost === undefined) return;
      outputLost.abort();
      throw new CliError(`the event could not be printed: ${systemErrorWords(lost)}`, ExitCode.outputFailed);
    },
    canPrint: () => backlog(ctx.io.stdout) < OUTPUT_BACKLOG_BYTES && backlog(ctx.io.stderr) < OUTPUT_BACKLOG_BYTES,
    log: (line) => ctx.printer.info(line),
  }).catch((error: unknown) => {
    hold.release();
    throw error;
  });
  let unwire: Unwire | undefined;
  // A failure once the port is bound (the wiring, the catch-up's reads) stops the listener the usual way rather than
  // leaving its server open: said at once, then the stop, and the run ends with its exit code.
  let failure: { error: unknown } | undefined;
  try {
    unwire = await wireListener(ctx, listener.url, options.wire);
    // A port picked for it (`--port 0`) is news a person needs to send anything: said with -q too.
    const listening = `listening for webhooks on ${listener.url}; Ctrl-C to stop`;
    if (options.port === 0) ctx.printer.notice(listening);
    else ctx.printer.info(listening);
    if (options.catchUp !== undefined || catchUpIds.length > 0)
      await catchUp(ctx, listener, options.catchUp, catchUpIds);
    await Promise.race([interrupted(ctx.signal), interrupted(outputLost.signal)]);
  } catch (error) {
    failure = { error };
  }
  const reported = failure?.error instanceof CliError ? failure.error : undefined;
  if (reported) {
    ctx.exitCode = reported.exitCode; // before anything else is printed: a reader gone meanwhile does not make it 0
    ctx.printer.error(reported.message, sandboxAwareHint(ctx.ephemeralSandbox, reported.hint));
  }
  // The stop asked for once more abandons the events in hand: after a Ctrl-C, the next one; after a failure or a lost
  // stdout, the first (main.ts hears it as the signal; a process also asks onInterruptAgain).
  const signalledBefore = ctx.signal.aborted;
  const again = new Promise<'again'>((resolve) => {
    ctx.onInterruptAgain(() => resolve('again'));
    if (!signalledBefore) void interrupted(ctx.signal).then(() => resolve('again'));
  });
  const why = signalledBefore ? '' : failure ? ' (after the error above)' : " (stdout's reader went away)";
  // In the order the lines say: refuse new deliveries (503: the service sends them again), put the sandbox's URL back
  // at once so its redeliveries go there rather than to a listener that is closing, then finish the events in hand.
  const inHand = listener.inHand();
  const finishing =
    inHand === 0
      ? ''
      : `; finishing ${counted(inHand, 'event')} in hand (Ctrl-C ${signalledBefore ? 'again ' : ''}to abandon ${inHand === 1 ? 'it' : 'them'})`;
  ctx.printer.info(`stopping${why}: new deliveries get 503${finishing}`);
  const closing = listener.close().then(() => 'done' as const);
  closing.catch(() => undefined); // awaited below, after the URL is put back
  await unwire?.();
  const how = await Promise.race([closing, again]);
  await events.end();
  const lost = hold.lost();
  hold.release();
  // A closed pipe ends the run quietly (exit 0), as for any command; another write error is exit 14.
  if (lost !== undefined && lost.code !== 'EPIPE' && how === 'done')
    throw new CliError(`cannot write the output (${systemErrorWords(lost)})`, ExitCode.outputFailed);
  const left = how === 'done' ? [] : await listener.abandon();
  if (left.length > 0) {
    const shown = left.slice(0, 20).map((job) => job.label);
    const more = left.length > shown.length ? ` and ${left.length - shown.length} more` : '';
    throw new InterruptedError(
      `abandoned ${left.length} event(s) whose command did not run or finish: ${shown.join(', ')}${more}`,
      options.spool === undefined
        ? 'With --spool FILE they would run at the next start.'
        : `They stay in ${options.spool} and run at the next start with --spool ${options.spool}.`,
    );
  }
  // An error that is not taskctl's own (a bug) is said by main, as any other.
  if (failure && !reported) throw failure.error;
}

function interrupted(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * `--catch-up` / `--catch-up-task`: one synthesised event per task, through the listener's own path, each waiting for
 * room in the queue; Ctrl-C stops it and says what is left and how to catch it up.
 */
async function catchUp(
  ctx: Output & Process & Runtime & Service,
  listener: import('../webhook/listener.js').WebhookListener,
  withinMs: number | undefined,
  ids: number[],
): Promise<void> {
  const [api, { runCatchUp, taskIdList, restFlags }] = await Promise.all([ctx.api(), import('../webhook/catch-up.js')]);
  const { signal } = ctx;
  // The window counts back from the service's clock once the first page's Date has been read (server-time.ts).
  const onServiceClock = () => serviceNow(api.serverClockBounds(), ctx.clock.now()).start;
  const result = await runCatchUp(api, (raw) => listener.inject(raw, signal), {
    withinMs,
    windowStart: withinMs === undefined ? undefined : () => onServiceClock() - withinMs,
    ids,
    now: ctx.clock.now(),
    signal,
  });
  const { tasks, handedOn, duplicates, pending, refused, refusal, left } = result;
  const already = duplicates > 0 ? `, ${duplicates} already handled (duplicates, not handed on again)` : '';
  ctx.printer.info(
    `catch-up: ${handedOn} synthesised event(s) from ${tasks} task(s)${already}${pending > 0 ? `, ${pending} pending (no event yet)` : ''}`,
  );
  if (refused.length > 0) {
    ctx.printer.warn(
      `catch-up: ${refused.length} event(s) not handed on: ${taskIdList(refused)} (the first: ${refusal ?? 'refused'}). ` +
        'Start again with --catch-up-task ID for them once that is fixed.',
    );
  }
  if (left.size > 0) {
    const leftIds = [...left.keys()].sort((a, b) => a - b);
    ctx.printer.warn(
      `catch-up: stopped (Ctrl-C) with ${left.size} task(s) not handed on: ${taskIdList(leftIds)}. ` +
        `Catch them up: start again with ${restFlags(left, onServiceClock())}`,
    );
  }
}

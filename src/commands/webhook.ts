import { Option, type Command } from 'commander';
import type { ReceivedEvent } from '../webhook/listener.js';
import { WEBHOOK_EVENTS, type WebhookEventName } from '../api/webhook-events.js';
import type { Context } from '../context.js';
import { AuthError, InterruptedError, UnavailableError, UsageError } from '../errors.js';
import type { Column, StyledPart } from '../output/printer.js';
import { examples, type RunAction } from './help-text.js';
import { byteSize, collect, duration, port, positiveInt } from './parsers.js';
import { parseTaskId } from '../lib/task-id.js';

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
}

/** Output not yet written beyond this (stdout or stderr not being read) makes the listener answer 503. */
const OUTPUT_BACKLOG_BYTES = 1024 * 1024;

export interface SimulateCommandOptions {
  event?: WebhookEventName;
  to: string;
}

export function registerWebhook(program: Command, run: RunAction): void {
  const webhook = program
    .command('webhook')
    .description("receive the service's webhook events locally, or send a test event")
    .addHelpText(
      'after',
      examples([
        "taskctl webhook listen --exec 'jq -r .task.id >> finished.txt'",
        'taskctl webhook simulate 42 --event failed',
      ]),
    );
  webhook
    .command('listen')
    .description('run a local webhook receiver: verify the signature, print each event once, forward or exec')
    .option('--port <port>', 'port to listen on (0 = any free port)', port, 8788)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--path <path>', 'path that accepts deliveries', '/')
    .option('--forward-to <url>', 're-POST each event here; the service gets 200 only after its 2xx (else 502)')
    .option('--exec <command>', 'run this shell command per event, with the event JSON on stdin')
    .option('--exec-concurrency <n>', 'commands running at once (1 = one at a time, in order)', positiveInt(64), 1)
    .option('--queue <n>', 'events waiting for --exec at most; a full queue answers 503', positiveInt(100_000), 100)
    .option('--max-body <size>', 'largest event body (413 beyond): 1MiB, 256KiB, bytes', byteSize, 1024 * 1024)
    .option('--no-dedupe', 'hand repeat deliveries of an event on again (default: printed as duplicates only)')
    .option('--spool <file>', 'make acknowledged events durable (fsync before the 200; rerun at the next start)')
    .option('--catch-up <duration>', 'first hand on one event per task created within DURATION (synthesised)', duration)
    .option('--catch-up-task <id>', 'first hand on the event of this task (repeatable)', collect)
    .addHelpText(
      'after',
      examples([
        'taskctl webhook listen',
        'taskctl webhook listen -o ndjson | jq -c .',
        'taskctl webhook listen --forward-to http://127.0.0.1:3000/hooks',
        'taskctl webhook listen --exec ./on-event.sh --exec-concurrency 4 --queue 500',
        'taskctl webhook listen --exec ./on-event.sh --spool events.spool',
        'taskctl webhook listen --catch-up 1h --forward-to http://127.0.0.1:3000/hooks',
        'taskctl sandbox --webhook-url http://127.0.0.1:8788/   # in another terminal',
      ]) +
        '\ntsv columns: timestamp, event, id, service, completed_items, failed_items, total_items\n' +
        'Answers 401 without the right X-Webhook-Signature (the API key), 405/413 for bad requests, 400 for a body' +
        ' that is not JSON, and 200 once a signed JSON body is handled: printed, accepted by --forward-to (else 502),' +
        ' queued for --exec (503 when full, or while stdout is not read). The service retries what it did not get' +
        ' 200 for; a repeat of a handled (task, event) is shown as a duplicate and not handed on again.\n' +
        '$TASKCTL_EVENT and $TASKCTL_TASK_ID are set for --exec. Ctrl-C stops accepting and runs the queue to its end' +
        ' (exit 0); a second Ctrl-C abandons it and lists the events not run (exit 130).\n',
    )
    .action((options: ListenOptions, cmd: Command) => run(cmd, (ctx) => runListen(ctx, options)));
  webhook
    .command('simulate')
    .description('send a correctly signed event built from a real task to a URL')
    .argument('<id>', 'task id')
    .addOption(
      new Option('--event <event>', 'event to send')
        .choices([...WEBHOOK_EVENTS])
        .default(undefined, "the task's current state"),
    )
    .option('--to <url>', 'receiver URL', 'http://127.0.0.1:8788/')
    .addHelpText(
      'after',
      examples([
        'taskctl webhook simulate 42',
        'taskctl webhook simulate 42 --event failed --to http://127.0.0.1:3000/hooks',
      ]),
    )
    .action((id: string, options: SimulateCommandOptions, cmd: Command) =>
      run(cmd, (ctx) => runSimulate(ctx, parseTaskId(id), options)),
    );
}

/** A scalar field of a received body by path (`task.id`), whatever its shape; undefined when absent or not a scalar. */
function field(body: unknown, ...path: string[]): string | number | boolean | undefined {
  let value: unknown = body;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
}

/** tsv/csv columns of `webhook listen` (documented in its help); empty cells where a body lacks the field. */
const EVENT_COLUMNS: Array<Column<ReceivedEvent>> = [
  { header: 'timestamp', value: (e) => field(e.body, 'timestamp') },
  { header: 'event', value: (e) => e.name },
  { header: 'id', value: (e) => e.taskId },
  { header: 'service', value: (e) => field(e.body, 'task', 'service') },
  { header: 'completed_items', value: (e) => field(e.body, 'task', 'completed_items') },
  { header: 'failed_items', value: (e) => field(e.body, 'task', 'failed_items') },
  { header: 'total_items', value: (e) => field(e.body, 'task', 'total_items') },
];

/** Prints an event; true when it is now on the screen the log is read on (the listener then logs no status line). */
type PrintEvent = (received: ReceivedEvent, note: { duplicate: boolean }) => boolean;

/**
 * Each event once on stdout. A duplicate is shown only in the human format (marked); machine formats print each event
 * exactly once, and the duplicate goes to the log on stderr. When stdout and stderr are one terminal, an event line
 * printed there is the only line about it (a person sees each event once); piped, stderr keeps every status line.
 */
function eventPrinter(ctx: Context): { print: PrintEvent; end: () => Promise<void> } {
  const printer = ctx.printer;
  const oneScreen = ctx.io.stdout.isTTY === true && ctx.io.stderr.isTTY === true;
  if (printer.format === 'json' || printer.format === 'ndjson') {
    // The body exactly as delivered, unknown fields included: as received when it is one line (no copy of a big
    // body is made), compacted otherwise.
    return {
      print: (received, { duplicate }) => {
        if (duplicate) return false;
        printer.line(/[\r\n\u2028\u2029]/.test(received.raw) ? JSON.stringify(received.body) : received.raw.trim());
        return oneScreen;
      },
      end: async () => {},
    };
  }
  if (printer.format === 'tsv' || printer.format === 'csv') {
    const rows = printer.stream(EVENT_COLUMNS);
    return {
      print: (received, { duplicate }) => {
        if (duplicate) return false;
        rows.write([received]);
        return oneScreen;
      },
      end: () => rows.end(),
    };
  }
  return {
    print({ event, body, name, taskId, synthesised }, { duplicate }) {
      const marks: StyledPart[] = [];
      if (synthesised) marks.push({ text: '  (synthesised)', style: 'cyan' });
      if (duplicate) marks.push({ text: '  (duplicate, not handed on again)', style: 'dim' });
      if (!event) {
        // Not the spec's shape (the listener warned): what it says about itself, then the body as it came.
        printer.styledLine([
          `${String(field(body, 'timestamp') ?? '-')}  `,
          { text: name ?? 'event', status: true },
          `  task ${taskId ?? '(no id)'}  ${JSON.stringify(body)}`,
          ...marks,
        ]);
        return oneScreen;
      }
      const task = event.task;
      const reason = event.event === 'failed' ? `: ${event.task.error_message}` : '';
      printer.styledLine([
        `${event.timestamp}  `,
        { text: event.event, status: true },
        `  task ${task.id} ${task.service} ${task.completed_items}/${task.total_items} done, ${task.failed_items} failed${reason}`,
        ...marks,
      ]);
      return oneScreen;
    },
    end: async () => {},
  };
}

/** Bytes written but not yet taken by the reader (a pipe nobody reads grows it); 0 for streams that do not say. */
function backlog(stream: unknown): number {
  const length = (stream as { writableLength?: unknown }).writableLength;
  return typeof length === 'number' ? length : 0;
}

async function requireKey(ctx: Context): Promise<string> {
  const settings = await ctx.settings();
  if (!settings.apiKey) {
    throw new AuthError(
      'no API key configured: the listener verifies X-Webhook-Signature against it',
      'Run `taskctl auth login`, set TASKCTL_API_KEY, or pass --api-key-file.',
    );
  }
  return settings.apiKey.value;
}

export async function runListen(ctx: Context, options: ListenOptions): Promise<void> {
  if (!options.path.startsWith('/')) throw new UsageError(`--path must start with / (got "${options.path}")`);
  const catchUpIds = (options.catchUpTask ?? []).map((id) => parseTaskId(id));
  const apiKey = await requireKey(ctx);
  const { startWebhookListener } = await import('../webhook/listener.js');
  const events = eventPrinter(ctx);
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
    canPrint: () => backlog(ctx.io.stdout) < OUTPUT_BACKLOG_BYTES && backlog(ctx.io.stderr) < OUTPUT_BACKLOG_BYTES,
    log: (line) => ctx.printer.info(line),
  });
  ctx.printer.info(`listening for webhooks on ${listener.url}; Ctrl-C to stop`);
  if (options.catchUp !== undefined || catchUpIds.length > 0) await catchUp(ctx, listener, options.catchUp, catchUpIds);
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) {
      resolve();
      return;
    }
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  const again = new Promise<'again'>((resolve) => ctx.onInterruptAgain(() => resolve('again')));
  ctx.printer.info('stopping: new deliveries get 503; finishing the events in hand (Ctrl-C again to abandon them)');
  const how = await Promise.race([listener.close().then(() => 'done' as const), again]);
  await events.end();
  if (how === 'done') return;
  const left = await listener.abandon();
  if (left.length === 0) return;
  const shown = left.slice(0, 20).map((job) => job.label);
  const more = left.length > shown.length ? ` and ${left.length - shown.length} more` : '';
  throw new InterruptedError(
    `abandoned ${left.length} event(s) whose command did not run or finish: ${shown.join(', ')}${more}`,
    options.spool === undefined
      ? 'With --spool FILE they would run at the next start.'
      : `They stay in ${options.spool} and run at the next start with --spool ${options.spool}.`,
  );
}

/** `--catch-up` / `--catch-up-task`: one synthesised event per task, through the listener's own path. */
async function catchUp(
  ctx: Context,
  listener: import('../webhook/listener.js').WebhookListener,
  withinMs: number | undefined,
  ids: number[],
): Promise<void> {
  const [api, { tasksToCatchUp, synthesiseEvent }] = await Promise.all([ctx.api(), import('../webhook/catch-up.js')]);
  const now = ctx.clock.now();
  const tasks = await tasksToCatchUp(api, { withinMs, ids, now });
  let handed = 0;
  const failed: number[] = [];
  for (const task of tasks) {
    const event = synthesiseEvent(task, now);
    if (!event) continue;
    const outcome = await listener.inject(JSON.stringify(event));
    if (outcome.status === 200) handed++;
    else failed.push(task.id);
  }
  const skipped = tasks.length - handed - failed.length;
  ctx.printer.info(
    `catch-up: ${handed} synthesised event(s) from ${tasks.length} task(s)${skipped > 0 ? `, ${skipped} pending (no event yet)` : ''}`,
  );
  if (failed.length > 0) {
    ctx.printer.warn(`catch-up: not handed on (the app or the queue refused them): tasks ${failed.join(', ')}`);
  }
}

export async function runSimulate(ctx: Context, id: number, options: SimulateCommandOptions): Promise<void> {
  const api = await ctx.api();
  const task = await api.getTask(id);
  const { toWebhookEvent } = await import('../api/task-event.js');
  const wanted = options.event ?? task.status;
  if (!(WEBHOOK_EVENTS as readonly string[]).includes(wanted)) {
    throw new UsageError(
      `task ${id} is ${task.status}, which has no webhook event`,
      `Choose one with --event ${WEBHOOK_EVENTS.join('|')}.`,
    );
  }
  const event = toWebhookEvent({ ...task, status: wanted }, ctx.clock.now());
  if (!event) throw new UsageError(`cannot build a ${wanted} event for task ${id}`);
  const { sendSimulatedEvent } = await import('../webhook/simulate.js');
  const apiKey = (await ctx.apiSettings()).apiKey?.value;
  // ctx.api() above already refused a missing key; this only tells the type checker.
  if (apiKey === undefined) throw new AuthError('no API key configured');
  const result = await sendSimulatedEvent({ event, to: options.to, apiKey });
  if (ctx.printer.format === 'json' || ctx.printer.format === 'ndjson') {
    ctx.printer.json({
      event: event.event,
      task: id,
      to: options.to,
      status: result.status,
      duration_ms: Math.round(result.durationMs),
    });
  }
  if (result.status !== 200) {
    throw new UnavailableError(
      `the receiver answered HTTP ${result.status} to the ${event.event} event for task ${id} (the service counts only 200 as delivered)`,
    );
  }
  ctx.printer.success(
    `delivered ${event.event} event for task ${id} to ${options.to}: HTTP 200 in ${Math.round(result.durationMs)} ms`,
  );
}

import { Option, type Command } from 'commander';
import type { ReceivedEvent } from '../webhook/listener.js';
import { WEBHOOK_EVENTS, type WebhookEventName } from '../api/webhook-events.js';
import type { Context } from '../context.js';
import { AuthError, UnavailableError, UsageError } from '../errors.js';
import type { Column } from '../output/printer.js';
import { examples, type RunAction } from './help-text.js';
import { port } from './parsers.js';
import { parseTaskId } from './task-id.js';

export interface ListenOptions {
  port: number;
  host: string;
  path: string;
  forwardTo?: string;
  exec?: string;
}

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
    .option('--forward-to <url>', 're-POST each verified event to this URL (https, or http on loopback)')
    .option('--exec <command>', 'run this shell command per event, with the event JSON on stdin')
    .addHelpText(
      'after',
      examples([
        'taskctl webhook listen',
        'taskctl webhook listen -o ndjson | jq -c .',
        'taskctl webhook listen --forward-to http://127.0.0.1:3000/hooks',
        "taskctl webhook listen --exec 'jq -r .task.id >> finished.txt'",
        'taskctl sandbox --webhook-url http://127.0.0.1:8788/   # in another terminal',
      ]) +
        '\ntsv columns: timestamp, event, id, service, completed_items, failed_items, total_items\n' +
        'Answers 401 without the right X-Webhook-Signature (the API key), 405/413 for bad requests, 400 for a body' +
        " that is not JSON, and 200 for every signed JSON body (a shape that is not the spec's is printed as" +
        ' received, with a warning); a repeated (task, event) delivery is printed once.\n' +
        '$TASKCTL_EVENT and $TASKCTL_TASK_ID are set for --exec. Ctrl-C stops it (exit 0).\n',
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

function eventPrinter(ctx: Context): { print: (event: ReceivedEvent, raw: string) => void; end: () => Promise<void> } {
  const printer = ctx.printer;
  if (printer.format === 'json' || printer.format === 'ndjson') {
    // The body exactly as delivered (compacted), unknown fields included.
    return { print: (received) => printer.line(JSON.stringify(received.body)), end: async () => {} };
  }
  if (printer.format === 'tsv' || printer.format === 'csv') {
    const rows = printer.stream(EVENT_COLUMNS);
    return { print: (received) => rows.write([received]), end: () => rows.end() };
  }
  return {
    print({ event, body, name, taskId }) {
      if (!event) {
        // Not the spec's shape (the listener warned): what it says about itself, then the body as it came.
        printer.line(
          `${String(field(body, 'timestamp') ?? '-')}  ${printer.paintStatus(name ?? 'event')}  task ${taskId ?? '(no id)'}  ${JSON.stringify(body)}`,
        );
        return;
      }
      const task = event.task;
      const reason = event.event === 'failed' ? `: ${event.task.error_message}` : '';
      printer.line(
        `${event.timestamp}  ${printer.paintStatus(event.event)}  task ${task.id} ${task.service} ${task.completed_items}/${task.total_items} done, ${task.failed_items} failed${reason}`,
      );
    },
    end: async () => {},
  };
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
    env: ctx.env,
    clock: ctx.clock,
    onEvent: (received, raw) => events.print(received, raw),
    log: (line) => ctx.printer.info(line),
  });
  ctx.printer.info(`listening for webhooks on ${listener.url}; Ctrl-C to stop`);
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) {
      resolve();
      return;
    }
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await listener.close();
  await events.end();
}

export async function runSimulate(ctx: Context, id: number, options: SimulateCommandOptions): Promise<void> {
  const api = await ctx.api();
  const task = await api.getTask(id);
  const { toWebhookEvent } = await import('../core/follow/events.js');
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

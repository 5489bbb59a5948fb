import { Option, type Command } from 'commander';
import { WEBHOOK_EVENTS } from '../api/webhook-events.js';
import type { ListenOptions } from '../core/webhook-listen.js';
import type { SimulateCommandOptions } from '../core/webhook-simulate.js';
import { examples, type RunAction } from './help-text.js';
import { byteSize, collect, duration, port, positiveInt } from './parsers.js';
import { parseTaskId } from '../lib/task-id.js';

export function registerWebhook(program: Command, run: RunAction): void {
  const webhook = program
    .command('webhook')
    .description('receive webhook events on this machine, or send a test event')
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
    .option('--no-wire', "leave the sandbox's webhook URL alone (default: set to this listener, put back at exit)")
    .addHelpText(
      'after',
      examples([
        'taskctl webhook listen',
        'taskctl webhook listen -o ndjson | jq -c .',
        'taskctl webhook listen --forward-to http://127.0.0.1:3000/hooks',
        'taskctl webhook listen --exec ./on-event.sh --exec-concurrency 4 --queue 500',
        'taskctl webhook listen --exec ./on-event.sh --spool events.spool',
        'taskctl webhook listen --catch-up 1h --forward-to http://127.0.0.1:3000/hooks',
        'taskctl webhook listen --no-wire   # leave the sandbox webhook URL as it is',
      ]) +
        '\nAgainst the sandbox it sets itself as the webhook URL (http://127.0.0.1:PORT/PATH) and puts the previous one' +
        ' back when it stops, unless it was changed meanwhile; a listener killed with SIGKILL is undone by the next' +
        ' one. Another service delivers only to the public HTTPS URL set in its dashboard: use a tunnel.\n' +
        '\ntsv columns: timestamp, event, id, service, completed_items, failed_items, total_items\n' +
        'Answers 401 without the right X-Webhook-Signature (the API key), 405/413 for bad requests, 400 for a body' +
        ' that is not JSON, and 200 once a signed JSON body is handled: printed, accepted by --forward-to (else 502),' +
        ' queued for --exec (503 when full, or while stdout is not read). The service sends again what it did not get' +
        ' 200 for; a repeat of a handled (task, event) is shown as a duplicate and not handed on again.\n' +
        '$TASKCTL_EVENT and $TASKCTL_TASK_ID are set for --exec, and $TASKCTL_SIMULATED=1 for a `webhook simulate` event. Ctrl-C stops accepting and runs the queue to its end' +
        ' (exit 0); a second Ctrl-C abandons it and lists the events not run (exit 130). A closed stdout (| head -1)' +
        ' stops it the same way, the event it could not print answered 500.\n' +
        'Catch-up events wait for a place in the queue (taking at most half of it) instead of being refused; Ctrl-C' +
        ' during catch-up says how many were not handed on and the --catch-up or --catch-up-task flags for them. A' +
        ' catch-up that cannot read the tasks stops the listener the same way, then exits with its error (8, 7, 5).\n' +
        'With --spool a command still running when the listener was killed runs again at the next start (at least' +
        ' once): make it idempotent, keyed on $TASKCTL_TASK_ID and $TASKCTL_EVENT.\n',
    )
    .action((options: ListenOptions, cmd: Command) =>
      run(cmd, async (ctx) => (await import('../core/webhook-listen.js')).runListen(ctx, options)),
    );
  webhook
    .command('simulate')
    .description(
      'send a correctly signed event built from a real task to a URL (a delivery of its own, marked simulated)',
    )
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
      ]) +
        '\nEach event carries X-Taskctl-Simulated: <uuid>, so `webhook listen` hands it on even after the real event' +
        ' (its line says simulated) and --exec gets TASKCTL_SIMULATED=1.\n',
    )
    .action((id: string, options: SimulateCommandOptions, cmd: Command) =>
      run(cmd, async (ctx) => (await import('../core/webhook-simulate.js')).runSimulate(ctx, parseTaskId(id), options)),
    );
}

/**
 * `taskctl webhook simulate`: a correctly signed event built from a real task (api/task-event.ts), sent to a receiver
 * (webhook/simulate.ts); only a 200 counts as delivered, as for the service.
 */
import { WEBHOOK_EVENTS, type WebhookEventName } from '../api/webhook-events.js';
import { AuthError, UnavailableError, UsageError } from '../errors.js';
import type { Output, Runtime, Service } from './capabilities.js';

export interface SimulateCommandOptions {
  event?: WebhookEventName;
  to: string;
}

export async function runSimulate(
  ctx: Output & Runtime & Service,
  id: number,
  options: SimulateCommandOptions,
): Promise<void> {
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

/**
 * A task as a webhook envelope (docs/behaviour.md#webhook-receiver), for `watch -o ndjson` and `webhook simulate`: exactly the
 * fields of docs/openapi.json's `webhooks` per event, with honest defaults for what the API did not say.
 */
import { WebhookEventSchema } from './schemas.js';
import type { Task, WebhookEvent } from './schemas.js';
import { failedOrUnlisted, itemCounts, taskEventName } from '../lib/task-state.js';

/** Platforms of services whose name does not start with it (the sandbox's catalogue agrees). */
const PLATFORM_BY_PREFIX: Readonly<Record<string, string>> = { fanpage: 'facebook' };

/** The task's platform when the API did not send one: from the service name's prefix (`domain_check_availability` → `domain`). */
export function platformOf(service: string): string {
  const cut = service.indexOf('_');
  const prefix = cut > 0 ? service.slice(0, cut) : service;
  return PLATFORM_BY_PREFIX[prefix] ?? prefix;
}

/**
 * The event for the task's current status, or undefined for states with no event (waiting, unknown strings).
 * Defaults: item counts from the task or its items (`failed_items` includes the items an ended task does not list), else 0 (a failed task's unknown failures are the items not
 * completed; a completed task's unknown completions are not claimed); `started_at`/`completed_at`/`failed_at` the observation time `now` when unknown; keys in the document's order.
 */
export function toWebhookEvent(task: Task, now: number): WebhookEvent | undefined {
  const timestamp = new Date(now).toISOString();
  const platform = task.platform ?? platformOf(task.service);
  // The shared rule of lib/task-state.ts, as follow/item-counts.ts reads it. The event has no "not listed" field, so
  // items an ended task does not list count as failed here: not seen is not a success.
  const counts = itemCounts(task);
  const { completed } = counts;
  const failed = failedOrUnlisted(counts);
  let event: WebhookEvent;
  // Read by task-state.ts (`running` is processing, `cancelled` failed), so watch's events agree with wait's exit code.
  switch (taskEventName(task)) {
    case 'processing':
      event = {
        event: 'processing',
        timestamp,
        task: {
          id: task.id,
          service: task.service,
          platform,
          status: 'processing',
          total_items: task.total_items,
          completed_items: completed ?? 0,
          failed_items: failed ?? 0,
          cost: task.cost,
          created_at: task.created_at,
          started_at: task.started_at ?? timestamp,
        },
      };
      break;
    case 'completed': {
      const failedItems = failed ?? 0;
      // Unknown counts stay 0: a completed event must not claim items completed that nobody saw (wait exits 11 then).
      event = {
        event: 'completed',
        timestamp,
        task: {
          id: task.id,
          service: task.service,
          platform,
          status: 'completed',
          total_items: task.total_items,
          completed_items: completed ?? 0,
          failed_items: failedItems,
          cost: task.cost,
          created_at: task.created_at,
          completed_at: task.completed_at ?? timestamp,
        },
      };
      break;
    }
    case 'failed': {
      const completedItems = completed ?? 0;
      event = {
        event: 'failed',
        timestamp,
        task: {
          id: task.id,
          service: task.service,
          platform,
          status: 'failed',
          total_items: task.total_items,
          completed_items: completedItems,
          failed_items: failed ?? Math.max(0, task.total_items - completedItems),
          cost: task.cost,
          error_message: task.error_message ?? 'unknown error (the API gave no message)',
          created_at: task.created_at,
          failed_at: task.failed_at ?? task.completed_at ?? timestamp,
        },
      };
      break;
    }
    default:
      return undefined;
  }
  // Validate against the contract; the object built above is returned so its keys keep the document's order.
  WebhookEventSchema.parse(event);
  return event;
}

/** The webhook event names, without zod: `webhook simulate --event` lists them in `--help`. */
export const WEBHOOK_EVENTS = ['processing', 'completed', 'failed'] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

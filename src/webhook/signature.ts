import { createHash, timingSafeEqual } from 'node:crypto';
import { WEBHOOK_USER_AGENT } from '../api/constants.js';

/** The header the service signs webhooks with: its value is the account's API key. */
export const SIGNATURE_HEADER = 'x-webhook-signature';
/**
 * Marks a delivery made by `taskctl webhook simulate`; its value (a UUID per send) joins the listener's duplicate key,
 * so a simulated event is handed on even after the real one.
 */
export const SIMULATED_HEADER = 'x-taskctl-simulated';

/**
 * Constant-time check of a presented signature against the key. Both sides are hashed first so that the comparison
 * takes the same time whatever the presented length, and timingSafeEqual never sees unequal lengths.
 */
export function signatureMatches(presented: string, apiKey: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(apiKey, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** Headers of a delivery, as the service sends them. */
export function webhookHeaders(apiKey: string): Record<string, string> {
  return { 'Content-Type': 'application/json', 'X-Webhook-Signature': apiKey, 'User-Agent': WEBHOOK_USER_AGENT };
}

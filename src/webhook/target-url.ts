import { isLoopbackHost } from '../api/base-url.js';
import { UsageError } from '../errors.js';

const HINT =
  'Use https://, or http:// only to a loopback address (localhost, 127.0.0.1, ::1): the API key travels in X-Webhook-Signature.';

/**
 * Checks a URL that webhook events (and so the API key, as their signature) are sent to: https anywhere, http only to
 * loopback. Throws UsageError (exit 2) otherwise. `what` names the flag in the message.
 */
export function checkTargetUrl(text: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `${what} "${text}" is not a valid URL`,
      'Use a full URL such as http://127.0.0.1:3000/webhook.',
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(`${what} must not contain a user name or password`, HINT);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:') {
    if (isLoopbackHost(url.hostname)) return url;
    throw new UsageError(`refusing to send webhook events to ${url.origin} over plain HTTP`, HINT);
  }
  throw new UsageError(`${what} "${text}" must use https:// (or http:// on loopback)`, HINT);
}

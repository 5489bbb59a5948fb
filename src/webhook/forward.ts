import { SIGNATURE_HEADER, WEBHOOK_USER_AGENT } from './signature.js';

/** The service's own answer deadline (api-spec 6.1). */
const FORWARD_TIMEOUT_MS = 30_000;

export interface ForwardRequest {
  to: URL;
  /** Event name and task id, for the log line (when the body carries them). */
  name: string | undefined;
  taskId: string | undefined;
  raw: string;
  /** The incoming delivery's User-Agent, passed on unchanged. */
  userAgent: string | undefined;
  /** Passed on as X-Webhook-Signature, so the app can verify it as it would a real delivery. */
  apiKey: string;
  log: (line: string) => void;
  now: () => number;
}

/** Re-POSTs one verified event body to the local app. Logs the outcome; never rejects. */
export async function forwardEvent(request: ForwardRequest): Promise<void> {
  const { to, log } = request;
  const label = `forward ${request.name ?? 'event'} task ${request.taskId ?? '(no id)'} to ${to.origin}${to.pathname}`;
  const started = request.now();
  try {
    const response = await fetch(to, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': request.userAgent ?? WEBHOOK_USER_AGENT,
        [SIGNATURE_HEADER]: request.apiKey,
      },
      body: request.raw,
      // The key rides in a header: never let a redirect carry it somewhere else.
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await response.arrayBuffer().catch(() => undefined);
    const took = `${Math.round(request.now() - started)}ms`;
    if (response.status >= 200 && response.status < 300) log(`${label}: ${response.status} (${took})`);
    else log(`${label} failed: HTTP ${response.status} (${took})`);
  } catch (error) {
    log(`${label} failed: ${describe(error)}`);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${FORWARD_TIMEOUT_MS / 1000}s`;
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

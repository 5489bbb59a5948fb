/**
 * A command stopped by Ctrl-C or SIGTERM while its one request is in flight: the request held by a Gate, the run's
 * signal aborted as soon as it is, then let through to a mock that never answers it (the abort comes first).
 */
import { Gate } from './gate.js';
import { API_KEY, BASE_URL, mockApi, runTaskctl, type RunResult } from './run-in-process.js';

export async function stoppedInFlight(
  argv: string[],
  request: { method: string; path: string; status: number },
  signal: 'SIGINT' | 'SIGTERM',
): Promise<RunResult> {
  const api = mockApi();
  api.reply(request.method, request.path, request.status, { success: true, data: {} });
  api.allowUnused(); // the request is cut before the mock answers it
  const gate = new Gate(api.agent);
  const controller = new AbortController();
  gate.events.once('held', () => {
    controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError', signal }));
    gate.held[0]?.release();
  });
  const env = { TASKCTL_BASE_URL: BASE_URL, TASKCTL_API_KEY: API_KEY };
  return runTaskctl(argv, { dispatcher: gate, env, signal: controller.signal });
}

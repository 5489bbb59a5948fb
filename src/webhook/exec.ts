import { spawn } from 'node:child_process';
import { systemErrorWords } from '../errors.js';
import type { Env } from '../output/io.js';

/**
 * Runs `command` through the shell with the event JSON on stdin and TASKCTL_EVENT / TASKCTL_TASK_ID in its
 * environment (each set only when the body carries it), and TASKCTL_SIMULATED=1 for a `webhook simulate` delivery. Its stdout and stderr become log lines; a non-zero exit or a start failure is logged. Never rejects.
 */
export function runExec(
  command: string,
  event: { name: string | undefined; taskId: string | undefined; simulated?: boolean | undefined },
  raw: string,
  env: Env,
  log: (line: string) => void,
  stop?: AbortSignal,
): Promise<void> {
  return new Promise((resolve) => {
    const label = `exec (${event.name ?? 'event'}, task ${event.taskId ?? '(no id)'})`;
    const child = spawn(command, {
      shell: true,
      // Its own process group: the terminal's Ctrl-C (sent to our group) must not kill a command the listener is
      // finishing; a second Ctrl-C stops the whole group below (the shell and what it started).
      detached: true,
      env: {
        ...env,
        ...(event.name === undefined ? {} : { TASKCTL_EVENT: event.name }),
        ...(event.taskId === undefined ? {} : { TASKCTL_TASK_ID: event.taskId }),
        ...(event.simulated === true ? { TASKCTL_SIMULATED: '1' } : {}),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const onStop = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
      resolve();
    };
    if (stop?.aborted === true) onStop();
    else stop?.addEventListener('abort', onStop, { once: true });
    const relay = lineRelay((line) => log(`${label}: ${line}`));
    child.stdout.on('data', relay.write);
    child.stderr.on('data', relay.write);
    child.on('error', (error) => {
      if (stop?.aborted !== true) log(`${label} could not start: ${systemErrorWords(error)}`);
      resolve();
    });
    child.on('close', (code, signal) => {
      stop?.removeEventListener('abort', onStop);
      relay.flush();
      if (code !== 0 && stop?.aborted !== true)
        log(`${label} exited with ${code === null ? `signal ${signal}` : `code ${code}`}`);
      resolve();
    });
    // A command that does not read stdin closes the pipe early; that is not an error worth reporting.
    child.stdin.on('error', () => undefined);
    child.stdin.end(raw);
  });
}

/** The longest log line made of a command's output: one without line breaks is logged in pieces this long, never held. */
const LOG_LINE_MAX_CHARS = 64 * 1024;

function lineRelay(emit: (line: string) => void): { write: (chunk: Buffer) => void; flush: () => void } {
  let pending = '';
  return {
    write(chunk) {
      pending += chunk.toString('utf8');
      const lines = pending.split(/\r?\n/);
      pending = lines.pop() ?? '';
      for (const line of lines) {
        for (let at = LOG_LINE_MAX_CHARS; at < line.length; at += LOG_LINE_MAX_CHARS)
          emit(line.slice(at - LOG_LINE_MAX_CHARS, at));
        emit(line.slice(Math.floor(Math.max(0, line.length - 1) / LOG_LINE_MAX_CHARS) * LOG_LINE_MAX_CHARS));
      }
      while (pending.length > LOG_LINE_MAX_CHARS) {
        emit(pending.slice(0, LOG_LINE_MAX_CHARS));
        pending = pending.slice(LOG_LINE_MAX_CHARS);
      }
    },
    flush() {
      if (pending !== '') emit(pending);
      pending = '';
    },
  };
}

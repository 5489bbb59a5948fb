/**
 * Load test of `taskctl webhook listen` (the built binary): a simulated service sends signed events in bursts and
 * sends again every delivery it did not get 200 for (as the service does), also replays some it did; the forward target
 * fails a share of requests; the exec command takes 50 ms. It counts that every event the service saw acknowledged was
 * printed, forwarded (2xx) and executed exactly once, and reads the listener's peak RSS (VmHWM).
 *
 * `runListenLoad()` is the library; the suite runs a small smoke version, `npm run load:listen` the full one.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generator } from '../seeded.js';
import { waitFor } from '../wait-for.js';

const BIN = fileURLToPath(new URL('../../bin/taskctl.js', import.meta.url));
const KEY = 'sk_load_listen_7c1e';

export interface ListenLoadOptions {
  /** Distinct tasks; each sends `processing` then `completed` (2 events a task). */
  tasks: number;
  /** Deliveries sent at once in a burst. */
  burst: number;
  /** Share of forward requests the app fails with 500. */
  failRate: number;
  /** Share of acknowledged events the service sends again later (a replay). */
  replayRate: number;
  /** `--exec-concurrency`. */
  concurrency: number;
  /** Bytes of padding in each event (a 1 MiB body tests the memory bound). */
  padding?: number;
  /** Seed of the app's failures. */
  seed?: number;
  /** NODE_OPTIONS for the listener (experiments). */
  nodeOptions?: string;
}

export interface ListenLoadResult {
  events: number;
  deliveries: number;
  acknowledged: number;
  refused: Record<number, number>;
  replays: number;
  printed: { once: number; missing: number; extra: number };
  forwarded: { once: number; missing: number; extra: number };
  executed: { once: number; missing: number; extra: number };
  duplicatesLogged: number;
  peakRssMb: number;
  seconds: number;
  exitCode: number | null;
}

function eventBody(taskId: number, name: 'processing' | 'completed', padding: number): string {
  const at = '2025-01-01T12:00:00.000Z';
  const task = {
    id: taskId,
    service: 'domain_check_availability',
    platform: 'domain',
    status: name,
    total_items: 1,
    completed_items: name === 'completed' ? 1 : 0,
    failed_items: 0,
    cost: 1,
    created_at: at,
    ...(name === 'completed' ? { completed_at: at } : { started_at: at }),
  };
  return JSON.stringify({ event: name, timestamp: at, task, ...(padding > 0 ? { padding: 'x'.repeat(padding) } : {}) });
}

function tally(keys: string[], expected: Set<string>): { once: number; missing: number; extra: number } {
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  let once = 0;
  let missing = 0;
  let extra = 0;
  for (const k of expected) {
    const n = counts.get(k) ?? 0;
    if (n === 1) once++;
    else if (n === 0) missing++;
    else extra += n - 1;
  }
  for (const [k, n] of counts) if (!expected.has(k)) extra += n;
  return { once, missing, extra };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runListenLoad(options: ListenLoadOptions): Promise<ListenLoadResult> {
  const started = Date.now();
  const rand = generator(options.seed ?? 42);
  const padding = options.padding ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-listen-load-'));
  const execLog = join(dir, 'exec.log');
  const forwardedOk: string[] = [];
  const app = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (rand() < options.failRate) {
        res.writeHead(500).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event: string; task: { id: number } };
      forwardedOk.push(`${body.task.id}:${body.event}`);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;

  const child = spawn(
    process.execPath,
    [
      BIN,
      'webhook',
      'listen',
      // Port 0 and the port the listener reports: a port picked here first could be taken by a parallel test first.
      '--port',
      '0',
      '--forward-to',
      appUrl,
      '--exec',
      `sleep 0.05; echo "$TASKCTL_TASK_ID:$TASKCTL_EVENT" >> ${execLog}`,
      '--exec-concurrency',
      String(options.concurrency),
      '-o',
      'ndjson',
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        TASKCTL_API_KEY: KEY,
        HOME: dir,
        ...(options.nodeOptions === undefined ? {} : { NODE_OPTIONS: options.nodeOptions }),
      },
    },
  );
  const printed: string[] = [];
  let stdoutRest = '';
  let stderr = '';
  let duplicatesLogged = 0;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (stdoutRest + chunk).split('\n');
    stdoutRest = lines.pop() ?? '';
    for (const line of lines) {
      const body = JSON.parse(line) as { event: string; task: { id: number } };
      printed.push(`${body.task.id}:${body.event}`);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000);
    duplicatesLogged += chunk.split('(duplicate;').length - 1;
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  let poller: NodeJS.Timeout | undefined;
  try {
    // Up to 30 s: a start-up on a loaded machine takes seconds. The whole address, to the `;` after it: a chunk of
    // stderr may end inside the port's digits.
    const listening = await waitFor(() => /listening for webhooks on http:\/\/127\.0\.0\.1:(\d+)\S*;/.exec(stderr), {
      timeoutMs: 30_000,
      everyMs: 50,
      describe: () => `listener did not start: ${stderr}`,
    });

    let hwmKb = 0;
    const readPeak = (): void => {
      try {
        const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (match?.[1]) hwmKb = Math.max(hwmKb, Number(match[1]));
      } catch {
        // Exited meanwhile.
      }
    };
    poller = setInterval(readPeak, 100);
    const url = `http://127.0.0.1:${listening[1]}/`;
    const refused: Record<number, number> = {};
    let deliveries = 0;
    const acknowledged = new Set<string>();
    /** One delivery, sent again until it gets 200 (the service's schedule, compressed). */
    const deliver = async (taskId: number, name: 'processing' | 'completed'): Promise<void> => {
      const body = eventBody(taskId, name, padding);
      for (let attempt = 0; ; attempt++) {
        deliveries++;
        let status = 0;
        try {
          const res = await fetch(url, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-Webhook-Signature': KEY },
            body,
          });
          await res.arrayBuffer();
          status = res.status;
        } catch {
          status = 0;
        }
        if (status === 200) {
          acknowledged.add(`${taskId}:${name}`);
          return;
        }
        refused[status] = (refused[status] ?? 0) + 1;
        if (attempt > 200) throw new Error(`event ${taskId}:${name} never acknowledged (last ${status})`);
        await sleep(Math.min(2000, 20 * 2 ** Math.min(attempt, 6)) * (0.5 + rand()));
      }
    };

    const events: Array<[number, 'processing' | 'completed']> = [];
    for (let id = 1; id <= options.tasks; id++) events.push([id, 'processing'], [id, 'completed']);
    let replays = 0;
    for (let i = 0; i < events.length; i += options.burst) {
      const burst = events.slice(i, i + options.burst);
      await Promise.all(burst.map(([id, name]) => deliver(id, name)));
      // Replays of some acknowledged events (a person pressing Replay, or a redelivery whose 200 was lost).
      const again = burst.filter(() => rand() < options.replayRate);
      replays += again.length;
      await Promise.all(again.map(([id, name]) => deliver(id, name)));
    }

    // Stop like Ctrl-C: the listener finishes its queue, then exits 0.
    readPeak();
    child.kill('SIGINT');
    const exitCode = await exited;
    const executed = readFileSync(execLog, 'utf8').split('\n').filter(Boolean);
    return {
      events: events.length,
      deliveries,
      acknowledged: acknowledged.size,
      refused,
      replays,
      printed: tally(printed, acknowledged),
      forwarded: tally(forwardedOk, acknowledged),
      executed: tally(executed, acknowledged),
      duplicatesLogged,
      peakRssMb: Math.round(hwmKb / 1024),
      seconds: Math.round((Date.now() - started) / 100) / 10,
      exitCode,
    };
  } finally {
    // Also when a step above threw: no listener left running, no server, no directory.
    clearInterval(poller);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    await new Promise((resolve) => app.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

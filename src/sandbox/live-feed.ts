/**
 * `GET /__sandbox/events`: server-sent events that tell the dashboard what changed, so it re-reads only that part.
 * Chosen over polling: a quiet sandbox sends nothing but a comment every 15 s, and a change shows within ~100 ms.
 * Each event names one topic (`state`: balance, key, webhook URL, a new task; `tasks`: a task's status changed;
 * `deliveries`; `faults`); bursts are coalesced per topic into one event per 100 ms. The events carry no data worth
 * protecting (the page re-reads through the admin API), and at most 32 streams are kept open.
 */
import type { ServerResponse } from 'node:http';
import type { TimerSet } from './timers.js';

export type LiveTopic = 'state' | 'tasks' | 'deliveries' | 'faults';

const COALESCE_MS = 100;
const HEARTBEAT_MS = 15_000;
/** Streams beyond this close the oldest: a page left open in many tabs cannot hold unbounded sockets. */
const MAX_STREAMS = 32;

export class LiveFeed {
  private readonly streams = new Set<ServerResponse>();
  private readonly due = new Set<LiveTopic>();
  private flushTimer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly timers: TimerSet) {}

  /** Takes over the response as an event stream until the client goes away or the sandbox closes. */
  open(res: ServerResponse): void {
    if (this.streams.size >= MAX_STREAMS) {
      const [oldest] = this.streams;
      oldest?.end();
      if (oldest) this.streams.delete(oldest);
    }
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    // Tells EventSource how long to wait before reconnecting, and lets the page know it is live.
    res.write('retry: 1000\nevent: hello\ndata: {}\n\n');
    this.streams.add(res);
    res.on('close', () => this.streams.delete(res));
    this.beat();
  }

  /** Something in `topic` changed; the streams hear of it within ~100 ms, once per burst. */
  notify(topic: LiveTopic): void {
    if (this.streams.size === 0) return;
    this.due.add(topic);
    this.flushTimer ??= this.timers.set(() => this.flush(), COALESCE_MS);
  }

  get size(): number {
    return this.streams.size;
  }

  private flush(): void {
    this.flushTimer = undefined;
    const topics = [...this.due];
    this.due.clear();
    const text = topics.map((topic) => `event: change\ndata: ${JSON.stringify({ topic })}\n\n`).join('');
    for (const res of this.streams) res.write(text);
  }

  private beat(): void {
    if (this.heartbeat !== undefined) return;
    this.heartbeat = this.timers.set(() => {
      this.heartbeat = undefined;
      if (this.streams.size === 0) return;
      for (const res of this.streams) res.write(': keep-alive\n\n');
      this.beat();
    }, HEARTBEAT_MS);
  }
}

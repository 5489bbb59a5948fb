/**
 * What a person or a CI log sees while `wait`/`create --wait` follow tasks (issue 16): one line per task with its
 * status, counts, percent, rate, ETA and elapsed time. On a terminal the lines are a live block that ticks; in plain
 * mode a task gets a line when its status changes, and when its counts change no sooner than max(2 s, 1/60 of the
 * elapsed time) after its last line, plus a heartbeat each minute with fresh counts. Only tasks seen are shown.
 */
import type { Task } from '../../api/schemas.js';
import type { Paint, Progress } from '../../output/progress.js';
import { isTerminal, taskPhase, taskSucceeded } from '../task-state.js';
import type { ItemCounts } from '../task-state.js';
import type { Clock } from '../time.js';
import type { TaskChange } from './follow.js';
import type { OutageState } from './outage.js';

/** A CI log shows life at least this often. */
const HEARTBEAT_MS = 60_000;
/** Shortest gap between two count lines of one task in plain mode. */
const MIN_LINE_GAP_MS = 2000;
/** A long task writes about this many count lines in plain mode (a line no sooner than elapsed/60 after the last). */
const LINES_PER_TASK = 60;
/** Plain-mode heartbeats list unfinished tasks one per line up to this many, else one summary line. */
const HEARTBEAT_LINES = 10;
const BAR_WIDTH = 16;

export interface DisplayOptions {
  progress: Progress;
  clock: Pick<Clock, 'now'>;
  /** Task ids in the order given (the display's order). */
  ids: readonly number[];
  /** `--allow-item-failures`: a completed task with failed items earns ✓, not ✗. */
  allowItemFailures?: boolean | undefined;
}

interface View {
  change: TaskChange;
  /** Local time the task was first seen: the elapsed clock's fallback when the server's timestamps are unusable. */
  firstSeenAt: number;
  /** Live mode: items shown so far, estimated from the rate between polls; never goes back while the status holds. */
  shown?: number;
}

/** Live mode estimates items between polls from the rate, at most this far past the last poll. */
const EXTRAPOLATE_MS = 30_000;

/** Live mode: columns padded so the bars of several tasks line up. */
interface Widths {
  id: number;
  status: number;
}

interface Printed {
  at: number;
  key: string;
}

export class FollowDisplay {
  private readonly views = new Map<number, View>();
  private readonly printed = new Map<number, Printed>();
  /** Plain mode: tasks whose counts moved while their lines were throttled. */
  private readonly pending = new Set<number>();
  private readonly start: number;
  private lastLineAt: number;
  /** The follow engine's outage state while the service fails (undefined while it answers). */
  private outageState: OutageState | undefined;

  constructor(private readonly options: DisplayOptions) {
    this.start = options.clock.now();
    this.lastLineAt = this.start;
    if (options.progress.mode === 'live') options.progress.live((spin, maxLines) => this.frame(spin, maxLines));
  }

  /** Every observation: fresh counts, rate and ETA for the live block (plain mode prints on `change` only). */
  poll(change: TaskChange): void {
    const id = change.task.id;
    const seen = this.views.get(id);
    const sameStatus = seen?.change.task.status === change.task.status;
    this.views.set(id, {
      change,
      firstSeenAt: seen?.firstSeenAt ?? change.at,
      ...(sameStatus && seen.shown !== undefined ? { shown: seen.shown } : {}),
    });
    if (this.options.progress.mode === 'live') this.options.progress.refresh();
  }

  /** The service failed a round (`retrying`), or answers again: the live block says so above the tasks. */
  outage(state: OutageState): void {
    this.outageState = state.retrying ? state : undefined;
    if (this.options.progress.mode === 'live') this.options.progress.refresh();
  }

  /** A change of status or counts (also given to `poll` first). */
  change(change: TaskChange): void {
    if (this.views.get(change.task.id)?.change !== change) this.poll(change);
    if (this.options.progress.mode === 'lines') this.plainChange(change.task.id, change.statusChanged);
  }

  /** After each poll round: plain mode prints throttled count lines that are due, and the heartbeat. */
  round(): void {
    if (this.options.progress.mode !== 'lines') return;
    const now = this.options.clock.now();
    for (const id of this.pending) if (now - (this.printed.get(id)?.at ?? -Infinity) >= this.gap(now)) this.print(id);
    if (now - this.lastLineAt < HEARTBEAT_MS) return;
    const running = this.ordered().filter((view) => !isTerminal(view.change.task));
    if (running.length > HEARTBEAT_LINES) this.log(this.summary(now, ''));
    else for (const view of running) this.print(view.change.task.id);
  }

  /** The end: the live block becomes final lines (✓/✗ on each task); plain mode prints what throttling held back. */
  finish(interrupted: boolean): void {
    const { progress } = this.options;
    if (progress.mode === 'live') {
      progress.stop();
      if (interrupted) return;
      const views = this.ordered();
      const rows = views.length <= HEARTBEAT_LINES ? views : views.filter((view) => !this.earnedTick(view.change));
      if (views.length > HEARTBEAT_LINES) progress.log(this.summary(this.options.clock.now(), ''));
      const widths = this.widths(views);
      for (const view of rows) progress.log(this.line(view, '', 'live', widths));
    } else if (progress.mode === 'lines') {
      for (const id of this.pending) this.print(id);
    }
  }

  private plainChange(id: number, statusChanged: boolean): void {
    const now = this.options.clock.now();
    const last = this.printed.get(id);
    if (statusChanged || last === undefined || now - last.at >= this.gap(now)) this.print(id);
    else this.pending.add(id);
  }

  private gap(now: number): number {
    return Math.max(MIN_LINE_GAP_MS, (now - this.start) / LINES_PER_TASK);
  }

  private print(id: number): void {
    const view = this.views.get(id);
    this.pending.delete(id);
    if (!view) return;
    const now = this.options.clock.now();
    const key = stateKey(view.change);
    const last = this.printed.get(id);
    // The same state twice only as a heartbeat (a minute on, its elapsed time moved).
    if (last?.key === key && now - last.at < HEARTBEAT_MS) return;
    this.printed.set(id, { at: now, key });
    this.log(this.line(view, '', 'lines'));
  }

  private log(line: string): void {
    this.lastLineAt = this.options.clock.now();
    this.options.progress.log(line);
  }

  private ordered(): View[] {
    const views: View[] = [];
    for (const id of this.options.ids) {
      const view = this.views.get(id);
      if (view) views.push(view);
    }
    return views;
  }

  /** The live block: every task seen, or, when they do not fit, a summary line and the unfinished ones. */
  private frame(spin: string, maxLines: number): string[] {
    const outage = this.outageState;
    if (outage === undefined || maxLines < 2) return this.taskLines(spin, maxLines);
    const silent = clockTime(this.options.clock.now() - outage.lastGoodAt);
    const head = this.options.progress.paint.yellow(`the service is failing (no good answer for ${silent}); retrying`);
    return [head, ...this.taskLines(spin, maxLines - 1)];
  }

  private taskLines(spin: string, maxLines: number): string[] {
    const now = this.options.clock.now();
    const views = this.ordered();
    const widths = this.widths(views);
    if (views.length <= maxLines) return views.map((view) => this.line(view, spin, 'live', widths));
    const running = views.filter((view) => !isTerminal(view.change.task));
    const shown = running.slice(0, maxLines - 1).map((view) => this.line(view, spin, 'live', widths));
    return [this.summary(now, spin), ...shown];
  }

  private widths(views: readonly View[]): Widths {
    let id = 0;
    let status = 0;
    for (const { change } of views) {
      id = Math.max(id, String(change.task.id).length);
      status = Math.max(status, this.options.progress.clean(change.task.status).length);
    }
    return { id, status };
  }

  private summary(now: number, spin: string): string {
    const { paint } = this.options.progress;
    const views = this.ordered();
    const done = views.filter((view) => isTerminal(view.change.task));
    const bad = done.filter((view) => !this.earnedTick(view.change)).length;
    const unseen = this.options.ids.length - views.length;
    const parts = [
      `${this.options.ids.length} tasks: ${done.length} finished`,
      ...(bad > 0 ? [paint.red(`${bad} ✗`)] : []),
      `${views.length - done.length} running`,
      ...(unseen > 0 ? [`${unseen} not seen yet`] : []),
    ];
    return `${spin === '' ? '' : `${paint.cyan(spin)} `}${parts.join(', ')} · ${clockTime(now - this.start)}`;
  }

  /**
   * Items finished by `now` as the rate predicts from the last poll: a bar that moves between sparse polls. Capped
   * below the total (the end is only what was seen) and never lower than already shown while the status holds.
   */
  private estimate(view: View, now: number): number | undefined {
    const { counts, itemsPerSecond, at } = view.change;
    if (counts.completed === undefined || itemsPerSecond === undefined) return view.shown;
    const seen = counts.completed + (counts.failed ?? 0);
    const ahead = (itemsPerSecond * Math.min(EXTRAPOLATE_MS, Math.max(0, now - at))) / 1000;
    const estimate = Math.min(counts.total - 1, Math.floor(seen + ahead));
    view.shown = Math.max(view.shown ?? 0, estimate, seen);
    return view.shown;
  }

  private earnedTick(change: TaskChange): boolean {
    const { task } = change;
    if (taskSucceeded(task)) return true;
    return this.options.allowItemFailures === true && taskPhase(task) === 'completed';
  }

  /** One task's line. `live`: icon, bar, colour; `lines`: plain words for a log. */
  private line(view: View, spin: string, mode: 'live' | 'lines', widths: Widths = { id: 0, status: 0 }): string {
    const { paint, clean } = this.options.progress;
    const { task, counts } = view.change;
    const now = this.options.clock.now();
    const ended = isTerminal(task);
    const tick = this.earnedTick(view.change) ? paint.green('✓') : paint.red('✗');
    const icon = ended ? tick : spin === '' ? '' : paint.cyan(spin);
    const status = paintStatus(paint, task, clean(task.status).padEnd(widths.status));
    const rate = view.change.itemsPerSecond;
    const end = view.change.predictedEnd;
    const timing = [
      !ended && rate !== undefined ? `${formatRate(rate)}/s` : '',
      !ended && end !== undefined ? `ETA ${end > now ? clockTime(end - now) : 'now'}` : '',
    ];
    const elapsed = clockTime(elapsedOf(view, now));
    if (mode === 'live') {
      const parts = [
        icon,
        `task ${String(task.id).padEnd(widths.id)}`,
        status,
        ...liveCounts(counts, paint, ended ? undefined : this.estimate(view, now)),
        ...timing,
        paint.dim(elapsed),
      ];
      return parts.filter((part) => part !== '').join(' ');
    }
    const head = [ended ? icon : '', `task ${task.id}`, status, plainCounts(counts)].filter((part) => part !== '');
    return [head.join(' '), ...timing.filter((part) => part !== ''), `${elapsed} elapsed`].join(', ');
  }
}

/** `estimate`: items finished by now as extrapolated from the rate (shown with `~`), when above the count seen. */
function liveCounts(counts: ItemCounts, paint: Paint, estimate: number | undefined): string[] {
  const { completed, failed, total } = counts;
  if (completed === undefined) return [paint.dim('(the server reports no item progress)')];
  const seen = completed + (failed ?? 0);
  const done = estimate !== undefined && estimate > seen ? estimate : seen;
  const mark = done > seen ? '~' : '';
  return [
    bar(done, total, paint),
    percent(done, total),
    `${mark}${done}/${total}`.padStart(2 * String(total).length + 2),
    failed ? paint.red(`${failed} failed`) : '',
  ];
}

function plainCounts(counts: ItemCounts): string {
  const { completed, failed, total } = counts;
  if (completed === undefined) return '(the server reports no item progress)';
  const done = completed + (failed ?? 0);
  return `${done}/${total} items (${percent(done, total)}${failed ? `, ${failed} failed` : ''})`;
}

function percent(done: number, total: number): string {
  return total > 0 ? `${Math.floor((100 * done) / total)}%` : '100%';
}

function bar(done: number, total: number, paint: Paint): string {
  const filled = total > 0 ? Math.min(BAR_WIDTH, Math.floor((BAR_WIDTH * done) / total)) : BAR_WIDTH;
  const rest = BAR_WIDTH - filled;
  return paint.cyan('█'.repeat(filled)) + (rest > 0 ? paint.dim('░'.repeat(rest)) : '');
}

function paintStatus(paint: Paint, task: Task, text: string): string {
  const phase = taskPhase(task);
  if (phase === 'completed') return paint.green(text);
  if (phase === 'ended') return paint.red(text);
  return task.status === 'processing' ? paint.yellow(text) : task.status === 'pending' ? paint.dim(text) : text;
}

/** What makes two plain lines the same news: status and counts. */
function stateKey(change: TaskChange): string {
  const { completed, failed } = change.counts;
  return `${change.task.status}\u0000${completed ?? '-'}\u0000${failed ?? '-'}`;
}

/** Since the task started (or was created), by the server's timestamps when usable; frozen at its end. */
function elapsedOf(view: View, now: number): number {
  const { task, at } = view.change;
  const begin = parseTime(task.started_at) ?? parseTime(task.created_at);
  const start = begin !== undefined && begin <= now ? begin : view.firstSeenAt;
  const end = isTerminal(task) ? (parseTime(task.completed_at) ?? parseTime(task.failed_at) ?? at) : now;
  return Math.max(0, end - start);
}

function parseTime(text: string | null | undefined): number | undefined {
  if (text === undefined || text === null) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

/** 0:07, 12:34, 1:02:03. */
export function clockTime(ms: number): string {
  const total = Math.floor(Math.max(0, ms) / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

function formatRate(perSecond: number): string {
  return perSecond >= 100 ? perSecond.toFixed(0) : perSecond >= 10 ? perSecond.toFixed(1) : perSecond.toFixed(2);
}

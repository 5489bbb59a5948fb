/**
 * What a person or a CI log sees while `wait`/`create --wait` follow tasks: one line per task with its
 * status, counts, percent, rate, estimated time left and elapsed time. On a terminal the lines are a live block that
 * ticks; in plain mode a task gets a line when its status changes, and when its counts change no sooner than
 * max(2 s, 1/60 of the elapsed time) after its last line, plus a heartbeat each minute with fresh counts (none while
 * the service fails: the failed rounds' warnings say how old the last answer is). Only tasks seen are shown.
 *
 * Truthful: every count shown is one the service reported (nothing is extrapolated between polls); the
 * time left is labelled as an estimate; while the service does not answer, the block says so (polling, last answer
 * N s ago) and shows no rate or estimate, and before it says so the estimate holds from when the answer was due, so
 * nothing moves that is not known.
 */
import { NO_ANSWER_NOTICE_MS } from '../../api/constants.js';
import { clockTime, formatDuration } from '../../lib/duration.js';
import type { Paint, Progress } from '../../output/progress.js';
import { paintTone } from '../../output/status-colours.js';
import { countsText } from '../../output/task-columns.js';
import { textWidth, wrapText } from '../../output/width.js';
import { formatCount } from '../../output/numbers.js';
import { counted } from '../../output/plural.js';
import { isTerminal, taskPhase, taskSucceeded, taskTone } from '../../lib/task-state.js';
import type { ItemCounts } from '../../lib/task-state.js';
import type { Clock } from '../../lib/time.js';
import type { TaskChange } from './follow.js';
import { seconds } from './outage.js';

/** A CI log shows life at least this often. */
const HEARTBEAT_MS = 60_000;
/** Shortest gap between two count lines of one task in plain mode. */
const MIN_LINE_GAP_MS = 2000;
/** A long task writes about this many count lines in plain mode (a line no sooner than elapsed/60 after the last). */
const LINES_PER_TASK = 60;
/** Plain-mode heartbeats list unfinished tasks one per line up to this many, else one summary line. */
const HEARTBEAT_LINES = 10;
/** A poll round waiting this long for an answer is shown as waiting (a request that hangs before it fails). */
const AWAIT_NOTICE_MS = NO_ANSWER_NOTICE_MS;
const BAR_WIDTH = 16;

export interface DisplayOptions {
  progress: Progress;
  clock: Pick<Clock, 'now'>;
  /** Task ids in the order given (the display's order). */
  ids: readonly number[];
  /** `--allow-item-failures`: a completed task with failed items earns ✓, not ✗. */
  allowItemFailures?: boolean | undefined;
  /**
   * The service's clock at a time of this machine's: the earliest its now can be, as its `Date` headers read it
   * (core/server-time.ts `serviceNow`). A task's elapsed time counts from its `started_at`, a time of the service's
   * clock. Without it, this machine's clock.
   */
  serviceNow?: ((localNow: number) => number) | undefined;
  /**
   * `watch`: the live block is only what a stall says (the wait for an answer, the polling with its give-up countdown),
   * nothing while answers come; the tasks are the caller's lines.
   */
  stallOnly?: boolean | undefined;
}

interface View {
  change: TaskChange;
  /** Local time the task was first seen: the elapsed clock's fallback when the server's timestamps are unusable. */
  firstSeenAt: number;
  /**
   * The earliest start the service gave for the task in any answer (`started_at`, else `created_at`), on its clock: a
   * task it reports going back (to `pending`, or started again later) keeps counting from it.
   */
  begin: number | undefined;
  /** The longest elapsed time a line of the task showed (ms): none shows less after it. */
  shown: number;
}

/** The service stopped answering: why, and since when nothing was heard. */
interface Trouble {
  reason: string;
  since: number;
  /** When the follow gives up without a good answer (its outage tolerance), once it said so. */
  giveUpAt?: number;
}

/** The rows a stall's reason may take in the live block; what goes beyond is cut with `…`. */
const REASON_ROWS = 3;

/** Live mode: columns padded so the bars of several tasks line up, and the bars' width (at most; see `liveRows`). */
interface Widths {
  id: number;
  status: number;
  bar?: number;
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
  /** Last time the service answered (any observation), or the start. */
  private lastAnswerAt: number;
  /** Whether the service answered at all: until it has, there is no "last answer" to time (watch's words). */
  private answered = false;
  private trouble: Trouble | undefined;
  /** The wait has ended: its lines are the state it ended in, nothing that would move on. */
  private final = false;
  /**
   * When the poll round now under way began (undefined between rounds): a hung request shows as one, and a task not
   * answered since holds its elapsed time there.
   */
  private roundStartedAt: number | undefined;
  /** The rate limit holds the next round until `until` (`what`: `the rate limit (6 requests/min)`). */
  private hold: { until: number; what: string } | undefined;

  constructor(private readonly options: DisplayOptions) {
    this.start = options.clock.now();
    this.lastLineAt = this.start;
    this.lastAnswerAt = this.start;
    if (options.progress.mode === 'live') options.progress.live((spin, maxLines) => this.frame(spin, maxLines));
  }

  /**
   * A poll round begins: while its answer is slow to come, the live block says so instead of ticking on. After rounds
   * that failed it keeps the first one's start: no answer has come since, so the tasks' times hold there.
   */
  roundStarted(): void {
    if (this.trouble === undefined || this.roundStartedAt === undefined) this.roundStartedAt = this.options.clock.now();
  }

  /**
   * The rate limit holds the next round until `untilMs` (epoch ms): the live block says so, counting down, in place of
   * a bare "reading" before the first answer, or in a line above the tasks.
   */
  held(untilMs: number, what: string): void {
    this.hold = { until: untilMs, what };
    if (this.options.progress.mode === 'live') this.options.progress.refresh();
  }

  /** `waiting 31s for the rate limit (6 requests/min)…` while a hold lasts, else undefined. */
  private holdText(now: number): string | undefined {
    if (this.hold === undefined || now >= this.hold.until) return undefined;
    return `waiting ${Math.ceil((this.hold.until - now) / 1000)}s for ${this.hold.what}…`;
  }

  /** The round under way has waited this long for an answer past AWAIT_NOTICE_MS, else undefined. */
  private awaited(now: number): number | undefined {
    const waitingSince = this.waitingSince();
    if (this.trouble || waitingSince === undefined) return undefined;
    const waited = now - waitingSince;
    return waited >= AWAIT_NOTICE_MS ? waited : undefined;
  }

  /** Since when the round under way has waited for an answer: its start, or its last answer (undefined between rounds). */
  private waitingSince(): number | undefined {
    return this.roundStartedAt === undefined ? undefined : Math.max(this.roundStartedAt, this.lastAnswerAt);
  }

  /** An answer that is no task's (a page of the task list): the stall, if any, is over. */
  heard(): void {
    this.answeredAt(this.options.clock.now());
  }

  /** Every observation: fresh counts, rate and ETA for the live block (plain mode prints on `change` only). */
  poll(change: TaskChange): void {
    const id = change.task.id;
    const seen = this.views.get(id);
    const begin = parseTime(change.task.started_at) ?? parseTime(change.task.created_at);
    this.views.set(id, {
      change,
      firstSeenAt: seen?.firstSeenAt ?? change.at,
      begin: seen?.begin === undefined || (begin !== undefined && begin < seen.begin) ? begin : seen.begin,
      shown: seen?.shown ?? 0,
    });
    this.answeredAt(change.at);
  }

  /** An answer came at `at`: the round has waited no longer than that, and any stall or failure shown is over. */
  private answeredAt(at: number): void {
    this.lastAnswerAt = Math.max(this.lastAnswerAt, at);
    this.answered = true;
    this.trouble = undefined;
    if (this.options.progress.mode === 'live') this.options.progress.refresh();
  }

  /**
   * A poll round failed and a later one follows (`reason`: the error's message). The live block shows it in place until
   * the next answer; other modes get one line per failure, with the time since the last answer. Returns that line.
   */
  unanswered(reason: string): string {
    const now = this.options.clock.now();
    this.trouble = { reason, since: this.trouble?.since ?? now };
    if (this.options.progress.mode === 'live') this.options.progress.refresh();
    return this.troubleText(now);
  }

  /**
   * A failed round after which the follow polls again, giving up at `giveUpAt` without a good answer before (the outage
   * tolerance), or the service answering again: the live block counts it down (true), as the plain lines of `watch`
   * and a log say it; false off a terminal, where the caller's line says it.
   */
  outage(state: { ongoing: boolean; giveUpAt: number }): boolean {
    if (this.options.progress.mode !== 'live') return false;
    if (state.ongoing && this.trouble !== undefined) {
      this.trouble.giveUpAt = state.giveUpAt;
      this.options.progress.refresh();
    }
    return true;
  }

  /**
   * The live block's head while the service fails: how long nothing came and when the follow gives up, then why; each
   * wrapped at the block's width (continuation rows indented), so no part of it is cut, but a reason over REASON_ROWS.
   */
  private troubleLines(trouble: Trouble, now: number): string[] {
    const giveUp =
      trouble.giveUpAt === undefined ? '' : ` (giving up in ${seconds(Math.max(0, trouble.giveUpAt - now))})`;
    const head = `! ${this.silence(now)}${giveUp}`;
    const reason = `  ${trouble.reason}`;
    const width = this.options.progress.lineWidth();
    if (width === undefined) return [head, reason];
    const rows = wrapText(reason, width, '  ').split('\n');
    const kept = rows.slice(0, REASON_ROWS);
    // The rows beyond go on the last kept one, which the block cuts with `…` at its width.
    if (rows.length > REASON_ROWS)
      kept[REASON_ROWS - 1] = [kept[REASON_ROWS - 1], ...rows.slice(REASON_ROWS)].join(' ');
    return [...wrapText(head, width, '  ').split('\n'), ...kept];
  }

  private troubleText(now: number): string {
    return `${this.silence(now)}: ${this.trouble?.reason ?? ''}`;
  }

  private silence(now: number): string {
    const since = seconds(now - this.lastAnswerAt);
    return this.answered ? `polling, last answer ${since} ago` : `no good answer yet (${since}), still polling`;
  }

  /** A change of status or counts (also given to `poll` first). */
  change(change: TaskChange): void {
    if (this.views.get(change.task.id)?.change !== change) this.poll(change);
    if (this.options.progress.mode === 'lines') this.plainChange(change.task.id, change.statusChanged);
  }

  /** After each poll round: plain mode prints throttled count lines that are due, and the heartbeat. */
  round(): void {
    // A round that failed leaves its start: the next one goes on waiting for the same answer.
    if (this.trouble === undefined) this.roundStartedAt = undefined;
    if (this.options.progress.mode !== 'lines') return;
    // While the service fails, no line repeats old counts under a fresh time stamp (nor an elapsed time run on past
    // what was read): each failed round's warning says how long ago the last answer came, the log's sign of life.
    if (this.trouble !== undefined) return;
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
      // What stays on the screen is the end's state: a task still running (a timeout, `--any`) keeps no rate or estimate.
      this.final = true;
      const views = this.ordered();
      const rows = views.length <= HEARTBEAT_LINES ? views : views.filter((view) => !this.earnedTick(view.change));
      if (views.length > HEARTBEAT_LINES) progress.log(this.summary(this.options.clock.now(), ''));
      const widths = this.widths(views);
      for (const row of this.liveRows(rows, '', widths)) progress.log(row);
    } else if (progress.mode === 'lines' && this.trouble === undefined) {
      // After a failing end, the error names each task's last known state: no line repeats it under a fresh time.
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
    this.log(this.plainLine(view));
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
    const now = this.options.clock.now();
    const views = this.ordered();
    const widths = this.widths(views);
    const { paint } = this.options.progress;
    const waited = this.awaited(now);
    // Trouble takes two lines: how long nothing came, then why, so the reason is not the part a narrow terminal cuts.
    const head = this.trouble
      ? this.troubleLines(this.trouble, now).map((line) => paint.yellow(line))
      : waited !== undefined
        ? [
            paint.yellow(
              `! waiting for the service's answer (${formatDuration(waited)}), ${this.answered ? `last answer ${formatDuration(now - this.lastAnswerAt)} ago` : 'no good answer yet'}`,
            ),
          ]
        : [];
    const hold = this.holdText(now);
    if (this.options.stallOnly === true) return hold === undefined ? head : [...head, paint.dim(hold)];
    // Nothing seen yet (the first answer is on its way): say what is being read rather than show an empty block.
    if (views.length === 0) {
      const { ids } = this.options;
      const what = ids.length === 1 ? `task ${ids[0]}` : counted(ids.length, 'task');
      const doing = hold === undefined ? `reading ${what}…` : `reading ${what}: ${hold}`;
      return [...head, `${paint.cyan(spin)} ${doing} ${paint.dim(clockTime(now - this.start))}`];
    }
    if (hold !== undefined) head.push(paint.dim(hold));
    const room = Math.max(1, maxLines - head.length);
    if (views.length <= room) return [...head, ...this.liveRows(views, spin, widths)];
    const running = views.filter((view) => !isTerminal(view.change.task));
    const shown = this.liveRows(running.slice(0, room - 1), spin, widths);
    return [...head, this.summary(now, spin), ...shown];
  }

  /**
   * The live lines of `views` with their bars one width, the narrowest any line leaves room for: a task whose line
   * grows (`2 failed`) narrows every bar with its own, so the bars still line up.
   */
  private liveRows(views: readonly View[], spin: string, widths: Widths): string[] {
    const rows = views.map((view) => this.liveLine(view, spin, widths));
    const bars = rows.flatMap(({ bar }) => (bar > 0 ? [bar] : []));
    const bar = Math.min(...bars);
    if (bars.every((each) => each === bar)) return rows.map(({ text }) => text);
    return views.map((view) => this.liveLine(view, spin, { ...widths, bar }).text);
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
      `${counted(this.options.ids.length, 'task')}: ${formatCount(done.length)} finished`,
      ...(bad > 0 ? [paint.red(`${formatCount(bad)} ✗`)] : []),
      `${formatCount(views.length - done.length)} running`,
      ...(unseen > 0 ? [`${formatCount(unseen)} not seen yet`] : []),
    ];
    return `${spin === '' ? '' : `${paint.cyan(spin)} `}${parts.join(', ')} · ${clockTime(now - this.start)}`;
  }

  private earnedTick(change: TaskChange): boolean {
    const { task } = change;
    if (taskSucceeded(task)) return true;
    return this.options.allowItemFailures === true && taskPhase(task) === 'completed';
  }

  /** What both kinds of a task's line show: its icon, status, rate, estimate and elapsed time. */
  private parts(view: View, spin: string, widths: Widths) {
    const { paint, clean } = this.options.progress;
    const { task } = view.change;
    const now = this.options.clock.now();
    const ended = isTerminal(task);
    const tick = this.earnedTick(view.change) ? paintTone(paint, taskTone(task), '✓') : paint.red('✗');
    // A task still running when nothing spins (the end's lines) keeps the icon's column blank: its bar lines up.
    const icon = ended ? tick : spin === '' ? ' ' : paint.cyan(spin);
    const status = paintTone(paint, taskTone(task), clean(task.status).padEnd(widths.status));
    // While the service does not answer, nothing that would move is shown: no rate, no estimate; nor once it ended.
    const quiet = this.final || this.trouble !== undefined || this.awaited(now) !== undefined;
    const rate = quiet ? undefined : view.change.itemsPerSecond;
    const end = quiet ? undefined : view.change.predictedEnd;
    // The estimate counts down only while answers come when due: from the moment the next answer was due (the round
    // under way began) until it comes, the estimate holds, as the counts do (docs/behaviour.md#spinners-and-progress).
    const asOf = Math.min(now, this.waitingSince() ?? now);
    // A countdown rounds up, as a timer does: 400 ms left is 0:01, and 0:00 is never shown while time is left.
    const left = end !== undefined && end > asOf ? clockTime(Math.ceil((end - asOf) / 1000) * 1000) : undefined;
    const timing = [
      !ended && rate !== undefined ? `${formatRate(rate)}/s` : '',
      !ended && end !== undefined ? (left === undefined ? 'est. overdue' : `est. ${left} left`) : '',
    ];
    // Never less than a line of the task showed before (docs/behaviour.md#the-services-clock): not after a task the
    // service reports going back, nor at the end of one whose block counted past its `completed_at`. A task whose
    // answer in the round under way has not come is told as of when the round began: one that ended while the service
    // was stalled ends at its own time, not at the stall's.
    const due = this.roundStartedAt;
    const told = due !== undefined && view.change.at < due ? Math.min(now, due) : now;
    view.shown = Math.max(view.shown, elapsedOf(view, told, this.options.serviceNow?.(told) ?? told));
    return { task, ended, icon, status, timing, elapsed: clockTime(view.shown) };
  }

  /** One task's line in the live block: icon, bar, colour, fitted to the terminal; `bar` its bar's width (0: none). */
  private liveLine(view: View, spin: string, widths: Widths): { text: string; bar: number } {
    const { task, ended, icon, status, timing, elapsed } = this.parts(view, spin, widths);
    const { paint } = this.options.progress;
    const head = { icon, id: String(task.id).padEnd(widths.id), status, ended };
    // The elapsed time set apart from the estimate before it, as in the block's head line: `est. 0:27 left · 0:14`.
    const since = paint.dim(`· ${elapsed}`);
    const width = this.options.progress.lineWidth();
    return fitLiveLine(head, view.change.counts, [...timing, since], paint, width, widths.bar);
  }

  /** One task's line in plain words, for a log. */
  private plainLine(view: View): string {
    const { task, ended, icon, status, timing, elapsed } = this.parts(view, '', { id: 0, status: 0 });
    const head = [ended ? icon : '', `task ${task.id}`, status, plainCounts(view.change.counts, ended)].filter(
      (part) => part !== '',
    );
    return [head.join(' '), ...timing.filter((part) => part !== ''), `${elapsed} elapsed`].join(', ');
  }
}

/** A bar narrower than this says nothing: it is left out. */
const BAR_MIN = 4;

/**
 * A live line within `width` columns, the task and its counts kept: the bar gives up width first (down to nothing),
 * then the times at the end go in the order shown (`extras`: the rate, the estimate, the elapsed time), then the
 * padding that lines tasks up, the percent and the word "task".
 */
function fitLiveLine(
  head: { icon: string; id: string; status: string; ended: boolean },
  counts: ItemCounts,
  extras: readonly string[],
  paint: Paint,
  width = Infinity,
  maxBar = BAR_WIDTH,
): { text: string; bar: number } {
  const { completed, failed, total } = counts;
  const join = (parts: readonly string[]) => parts.filter((part) => part !== '').join(' ');
  const task = [head.icon, `task ${head.id}`, head.status];
  const noBar = (text: string) => ({ text, bar: 0 });
  if (completed === undefined)
    return noBar(join([...task, paint.dim('(the server reports no item progress)'), ...extras]));
  const done = completed + (failed ?? 0);
  // The bar and percent count items finished either way; the numbers are the service's (output/task-columns.ts).
  const ratio = `${formatCount(completed)}/${formatCount(total)}`;
  const failedText = failed ? paint.red(`${formatCount(failed)} failed`) : '';
  const numbers = [percent(done, total, head.ended), ratio.padStart(2 * formatCount(total).length + 1), failedText];
  const fits = (line: string) => textWidth(line) <= width;
  const kept = extras.filter((part) => part !== '');
  for (let drop = 0; drop <= kept.length; drop++) {
    const rest = kept.slice(drop);
    const room = Math.min(maxBar, width - textWidth(join([...task, 'x', ...numbers, ...rest])) + 1);
    if (room >= BAR_MIN)
      return { text: join([...task, bar(done, total, head.ended, paint, room), ...numbers, ...rest]), bar: room };
  }
  const compact = [
    join([...task, ...numbers]),
    join([...task, percent(done, total, head.ended), ratio, failedText]),
    join([...task, ratio, failedText]),
    join([head.icon, head.id.trim(), head.status.trimEnd(), ratio, failedText]),
  ];
  return noBar(compact.find(fits) ?? compact[compact.length - 1] ?? '');
}

function plainCounts(counts: ItemCounts, ended: boolean): string {
  const { completed, failed, total } = counts;
  if (completed === undefined) return '(the server reports no item progress)';
  const done = completed + (failed ?? 0);
  return `items ${countsText(counts)} (${percent(done, total, ended)} finished)`;
}

/**
 * Items finished of the total, never past 100% (counts that disagree, more items than `total_items`, are warned about
 * once: lib/task-state.ts `countsDisagree`), and 100% only once the status says the task ended: counts alone never
 * call a task finished.
 */
function percent(done: number, total: number, ended: boolean): string {
  const whole = total > 0 ? Math.floor((100 * done) / total) : 100;
  return `${Math.min(whole, ended ? 100 : 99)}%`;
}

/** The percent as a bar: never past full, and full only once the task ended. */
function bar(done: number, total: number, ended: boolean, paint: Paint, width: number): string {
  const most = ended ? width : width - 1;
  const filled = total > 0 ? Math.min(most, Math.floor((width * done) / total)) : most;
  const rest = width - filled;
  return paint.cyan('█'.repeat(filled)) + (rest > 0 ? paint.dim('░'.repeat(rest)) : '');
}

/** What makes two plain lines the same news: status and counts. */
function stateKey(change: TaskChange): string {
  const { completed, failed } = change.counts;
  return `${change.task.status}\u0000${completed ?? '-'}\u0000${failed ?? '-'}`;
}

/**
 * Since the task started (or was created: the earliest either the service gave, `View.begin`), by the server's
 * timestamps when usable; frozen at its end. The time since is told on the service's clock (`serviceNow`, the earliest
 * its now can be, for this machine's `now`), which stamped `started_at`: a service hours behind this machine does not
 * show hours (nor one ahead a jump at the end), and a plain line never counts past the task's own end (`completed_at`).
 */
function elapsedOf(view: View, now: number, serviceNow: number): number {
  const { change, begin } = view;
  const { task, at } = change;
  const shift = serviceNow - now;
  const end = isTerminal(task) ? (parseTime(task.completed_at) ?? parseTime(task.failed_at) ?? at + shift) : serviceNow;
  const start = begin !== undefined && begin <= end ? begin : view.firstSeenAt + shift;
  return Math.max(0, end - start);
}

function parseTime(text: string | null | undefined): number | undefined {
  if (text === undefined || text === null) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

function formatRate(perSecond: number): string {
  return perSecond >= 100 ? perSecond.toFixed(0) : perSecond >= 10 ? perSecond.toFixed(1) : perSecond.toFixed(2);
}

/**
 * `--report` for `show`, `wait` and `create --wait`: parse the specs (`junit=FILE`, `github`) when the flag is read, so a
 * typo fails before anything is created, and write the reports at the end. The builders load only when used.
 */
import {
  appendFileSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  realpathSync,
  statSync,
  unlinkSync,
  type Stats,
} from 'node:fs';
import { dirname, join, relative, isAbsolute, resolve, basename } from 'node:path';
import { InvalidArgumentError, Option } from 'commander';
import type { ApiClient } from '../api/client.js';
import type { Task } from '../api/schemas.js';
import { CliError, systemErrorWords, UsageError } from '../errors.js';
import { destroyOnAbort } from '../lib/abortable.js';
import type { Env } from '../lib/env.js';
import type { IO } from '../output/io.js';
import type { Printer } from '../output/printer.js';
import { writeFileAtomicSync } from '../store/atomic-file.js';
import { startsWithJobRecord } from '../store/journal-head.js';
import { describeDirectoryProblem, makeDirectory } from '../store/make-dir.js';
import { stateDirectory } from '../store/state-dir.js';

export type ReportSpec = { kind: 'junit'; path: string } | { kind: 'github' };

const SPEC_HELP =
  'Use --report junit=FILE (JUnit XML) or --report github (job summary and annotations); repeat the flag for both.';

/** `junit=FILE` or `github`; anything else is a usage error (exit 2). */
export function parseReportSpec(value: string): ReportSpec {
  const text = value.trim();
  if (text === 'github') return { kind: 'github' };
  const junit = /^junit(?:=(.*))?$/.exec(text);
  if (junit) {
    const path = junit[1]?.trim() ?? '';
    if (path === '') throw new UsageError(`--report junit needs a file: junit=FILE`, SPEC_HELP);
    return { kind: 'junit', path };
  }
  throw new UsageError(`unknown report "${value}"`, SPEC_HELP);
}

/** The repeatable `--report <spec>` flag, shared by `show`, `wait` and `create --wait`. */
export function reportOption(): Option {
  return new Option(
    '--report <spec>',
    'write a report when done: junit=FILE or github (job summary + annotations); repeatable',
  ).argParser((value: string, previous: ReportSpec[] | undefined) => {
    try {
      return [...(previous ?? []), parseReportSpec(value)];
    } catch (error) {
      // Commander then names the flag and exits 2, like every other bad flag value.
      throw new InvalidArgumentError(`${(error as Error).message}. ${SPEC_HELP}`);
    }
  });
}

/**
 * Each task once more with GET /tasks/:id, for its items (polling reads task summaries only). A task that cannot be
 * read goes into the report as the wait last saw it, with a warning: the report must not cost the outcome's exit code.
 */
export async function fetchWithItems(
  api: Pick<ApiClient, 'getTask'>,
  tasks: readonly Task[],
  warn: (message: string) => void,
): Promise<Task[]> {
  const full: Task[] = [];
  for (const task of tasks) {
    if (task.items) {
      full.push(task);
      continue;
    }
    try {
      full.push(await api.getTask(task.id));
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      warn(`could not read the items of task ${task.id} for the report (${error.message}); it has its counts only`);
      full.push(task);
    }
  }
  return full;
}

/**
 * Proves every report file writable before anything is created, waited for or paid for (exit 2 naming the path), by
 * doing what the write will do rather than asking `access()` (which says yes to root on a read-only or pseudo file
 * system): the file's directory is made by the guarded walk (store/make-dir.ts), then a temporary file is created in it
 * and removed. Only a regular file (or none) may be there: the report replaces it whole, so a FIFO, a device, a socket
 * or a symbolic link is refused here, never opened (opening a FIFO blocks until someone reads it). No empty report is
 * left when the run fails (docs/behaviour.md#ci-reports). Nor is a journal ever replaced by a report: the run's own
 * `--journal` (`journal`), a file that starts with a job record, or a path in the state directory's jobs/ is refused
 * (a job whose journal turned into XML could no longer be read nor resumed). Call it first thing in `wait`, `show`,
 * `create` and `retry`.
 */
export function checkReportTargets(
  specs: readonly ReportSpec[] | undefined,
  run: { env: Env; journal?: string | undefined },
): void {
  for (const spec of specs ?? []) {
    if (spec.kind !== 'junit') continue;
    checkNotAJournal(spec.path, run);
    checkReportFile(spec.path);
  }
}

const JOURNAL_HINT = 'A report replaces its file whole: choose another --report junit=FILE than a job journal.';

function checkNotAJournal(path: string, run: { env: Env; journal?: string | undefined }): void {
  const refuse = (reason: string, hint = JOURNAL_HINT): never => {
    throw new UsageError(`cannot write the report to ${path}: ${reason}`, hint);
  };
  if (run.journal !== undefined && sameFile(path, run.journal))
    refuse(`it is this run's --journal ${run.journal}`, 'Choose another --report junit=FILE than the --journal FILE.');
  if (within(path, join(stateDirectory(run.env), 'jobs')))
    refuse("it is in taskctl's job directory, where the jobs' journals are");
  if (startsWithJobRecord(path)) refuse('it is a taskctl journal (it starts with a job record)');
}

/** The path with its directory's symbolic links resolved, as far up as something exists. */
function real(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = dirname(absolute);
    return parent === absolute ? absolute : join(real(parent), basename(absolute));
  }
}

/** Two names of one file: by device and inode when it exists, else by the resolved path. */
function sameFile(a: string, b: string): boolean {
  try {
    const [first, second] = [statSync(a), statSync(b)];
    return first.dev === second.dev && first.ino === second.ino;
  } catch {
    return real(a) === real(b);
  }
}

function within(path: string, dir: string): boolean {
  const inside = relative(real(dir), real(path));
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside);
}

function checkReportFile(path: string): void {
  const refuse = (reason: string, hint = 'Choose another --report junit=FILE.'): never => {
    throw new UsageError(`cannot write the report to ${path}: ${reason}`, hint);
  };
  let file: Stats | undefined;
  try {
    file = lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Missing, or under a file: the guarded walk below names the component that is wrong.
    if (code !== 'ENOENT' && code !== 'ENOTDIR') refuse(systemErrorWords(error));
  }
  if (file?.isDirectory()) refuse('it is a directory');
  if (file && !file.isFile())
    refuse(
      `it is ${kindOf(file)}, not a regular file`,
      'A report is written whole to a regular file, replacing it: choose one (then read it from there).',
    );
  const problem = makeDirectory(dirname(path));
  if (problem) refuse(describeDirectoryProblem(problem));
  try {
    probeDirectory(dirname(path));
  } catch (error) {
    // ENOENT in a directory that exists: a pseudo file system, which has no new files.
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'its file system does not allow new files there' : systemErrorWords(error);
    refuse(`no file can be created in ${dirname(path)}: ${why}`);
  }
}

/** What a path that is not a regular file or a directory is, for the refusal. */
function kindOf(stats: Stats): string {
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'something other than a file';
}

let probes = 0;

/** Creates a temporary file in `dir` and removes it: the only proof of a writable directory that holds for root too. */
function probeDirectory(dir: string): void {
  // Exclusive creation: a name some other process picked is never opened, nor removed. (No node:crypto: `wait` stays
  // light at start-up.)
  const probe = join(dir, `.taskctl-report-probe-${process.pid}-${Date.now().toString(36)}-${++probes}`);
  closeSync(openSync(probe, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600));
  unlinkSync(probe);
}

/**
 * Writes every requested report for `tasks` (which should carry their items). A report that cannot be written now (disk
 * full, directory removed since the check) is a warning: the outcome already happened and its exit code must stand.
 */
/** What writing reports needs of a run (core's Context has it). */
export interface ReportContext {
  readonly io: IO;
  readonly env: Env;
  readonly printer: Printer;
  readonly ephemeralSandbox: boolean;
  readonly redact: (text: string) => string;
  /** Ctrl-C, SIGTERM: ends a summary write that waits on a pipe's reader. */
  readonly signal: AbortSignal;
}

export async function writeReports(
  ctx: ReportContext,
  specs: readonly ReportSpec[],
  tasks: readonly Task[],
): Promise<void> {
  const junitPaths = [...new Set(specs.flatMap((spec) => (spec.kind === 'junit' ? [spec.path] : [])))];
  if (junitPaths.length > 0) {
    const { junitReport } = await import('./junit.js');
    const xml = ctx.redact(junitReport(tasks));
    for (const path of junitPaths) {
      const written = writeReportFile(ctx, path, (file) => {
        // The guarded walk: Node's recursive mkdir spins under /proc (docs/behaviour.md#files).
        const problem = makeDirectory(dirname(file), 0o777);
        if (problem) throw new DirectoryError(describeDirectoryProblem(problem));
        // A temp file beside it, renamed over it: a full disk leaves the old report (or none), never half of one.
        writeFileAtomicSync(file, xml, reportMode(file));
        return true;
      });
      if (written) ctx.printer.info(`wrote the JUnit report to ${path}`);
    }
  }
  if (specs.some((spec) => spec.kind === 'github')) {
    const { githubAnnotations, githubSummary } = await import('./github.js');
    const summaryFile = ctx.env.GITHUB_STEP_SUMMARY;
    if (summaryFile)
      await appendSummary(ctx, summaryFile, ctx.redact(githubSummary(tasks, { ephemeral: ctx.ephemeralSandbox })));
    else
      ctx.printer.warn(
        '--report github: GITHUB_STEP_SUMMARY is not set (not in GitHub Actions?), so there is no job summary; annotations only',
      );
    // Workflow commands go to stderr: the runner reads both streams for them, and stdout stays data.
    const annotations = githubAnnotations(tasks, undefined, { ephemeral: ctx.ephemeralSandbox });
    if (annotations.length > 0) ctx.io.stderr.write(`${annotations.map(ctx.redact).join('\n')}\n`);
  }
}

/**
 * Appends the job summary to `path`. Opened with O_NONBLOCK: a FIFO nobody has open is a warning at once, not a process
 * blocked in open() for ever (deaf to signals). A FIFO or socket with a reader is written through the event loop,
 * which waits while the reader is slow (more than the pipe's 64 KiB) and hears the stop signal: at Ctrl-C or SIGTERM
 * the write is dropped and the run ends with the signal's code (docs/behaviour.md#ci-reports).
 */
async function appendSummary(ctx: ReportContext, path: string, text: string): Promise<void> {
  let fd: number | undefined;
  const pipe = writeReportFile(ctx, path, (file) => {
    const opened = openSync(
      file,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK,
      0o666,
    );
    let handedOn = false;
    try {
      const stats = fstatSync(opened);
      if (stats.isFIFO() || stats.isSocket()) {
        fd = opened;
        handedOn = true;
        return true;
      }
      appendFileSync(opened, text);
      return false;
    } finally {
      if (!handedOn) closeSync(opened);
    }
  });
  if (pipe !== true || fd === undefined) return;
  try {
    await writeToPipe(fd, text, ctx.signal);
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason as Error;
    ctx.printer.warn(`could not write the report to ${path}: ${systemErrorWords(error)}`);
  }
}

/** Writes `text` to the pipe `fd` and closes it; a signal's abort destroys the pipe (its descriptor closed) at once. */
async function writeToPipe(fd: number, text: string, signal: AbortSignal): Promise<void> {
  const { Socket } = await import('node:net');
  let pipe: InstanceType<typeof Socket>;
  try {
    pipe = new Socket({ fd, readable: false, writable: true });
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  const stopListening = destroyOnAbort(pipe, signal);
  try {
    await new Promise<void>((resolve, reject) => {
      pipe.once('error', reject);
      pipe.once('close', () => {
        reject(new Error('closed before the end'));
      });
      // Called with an error when the pipe is destroyed first (a stop signal) or fails (its reader gone).
      pipe.end(text, (error?: Error | null) => {
        if (error) reject(error);
        else resolve();
      });
    });
  } finally {
    stopListening();
    pipe.destroy();
  }
}

/** What `write` returns, or undefined after a warning naming `path` and why it could not be written. */
function writeReportFile<T>(ctx: ReportContext, path: string, write: (path: string) => T): T | undefined {
  try {
    return write(path);
  } catch (error) {
    const reason = error instanceof DirectoryError ? error.message : systemErrorWords(error);
    ctx.printer.warn(`could not write the report to ${path}: ${reason}`);
    return undefined;
  }
}

/** An existing report keeps its mode; a new one is 0644, read by CI publishers (it holds no secret: redacted). */
function reportMode(path: string): number {
  try {
    return lstatSync(path).mode & 0o777;
  } catch {
    return 0o644;
  }
}

/** The report's directory could not be made: its message is the problem in plain words. */
class DirectoryError extends Error {}

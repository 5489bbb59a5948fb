/**
 * `--report` for `show`, `wait` and `create --wait`: parse the specs (`junit=FILE`, `github`) when the flag is read, so a
 * typo fails before anything is created, and write the reports at the end. The builders load only when used.
 */
import { accessSync, appendFileSync, constants, mkdirSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { InvalidArgumentError, Option } from 'commander';
import type { ApiClient } from '../api/client.js';
import type { Task } from '../api/schemas.js';
import { CliError, UsageError } from '../errors.js';
import type { Env } from '../lib/env.js';
import type { IO } from '../output/io.js';
import type { Printer } from '../output/printer.js';
import { fsReason } from '../lib/fs-reason.js';

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
 * Checks every report file before anything is created, waited for or paid for (exit 2 naming the path): the file is not
 * a directory and is writable, and its nearest existing ancestor is a writable directory (missing ones are created at
 * the end). Call it first thing in `wait`, `show` and `create`.
 */
export function checkReportTargets(specs: readonly ReportSpec[] | undefined): void {
  for (const spec of specs ?? []) if (spec.kind === 'junit') checkReportFile(spec.path);
}

function checkReportFile(path: string): void {
  const refuse = (reason: string): never => {
    throw new UsageError(`cannot write the report to ${path}: ${reason}`, 'Choose another --report junit=FILE.');
  };
  const file = statOrUndefined(path);
  if (file?.isDirectory()) refuse('it is a directory');
  if (file && !writable(path)) refuse('the file is not writable');
  if (file) return;
  let ancestor = dirname(path);
  let stats = statOrUndefined(ancestor);
  while (!stats) {
    const parent = dirname(ancestor);
    if (parent === ancestor) return refuse('no directory on its path exists');
    ancestor = parent;
    stats = statOrUndefined(ancestor);
  }
  if (!stats.isDirectory()) refuse(`${ancestor} is not a directory`);
  if (!writable(ancestor)) refuse(`the directory ${ancestor} is not writable`);
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
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
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, xml);
      });
      if (written) ctx.printer.info(`wrote the JUnit report to ${path}`);
    }
  }
  if (specs.some((spec) => spec.kind === 'github')) {
    const { githubAnnotations, githubSummary } = await import('./github.js');
    const summaryFile = ctx.env.GITHUB_STEP_SUMMARY;
    if (summaryFile)
      writeReportFile(ctx, summaryFile, (file) => {
        appendFileSync(file, ctx.redact(githubSummary(tasks, { ephemeral: ctx.ephemeralSandbox })));
      });
    else
      ctx.printer.warn(
        '--report github: GITHUB_STEP_SUMMARY is not set (not in GitHub Actions?), so there is no job summary; annotations only',
      );
    // Workflow commands go to stderr: the runner reads both streams for them, and stdout stays data.
    const annotations = githubAnnotations(tasks, undefined, { ephemeral: ctx.ephemeralSandbox });
    if (annotations.length > 0) ctx.io.stderr.write(`${annotations.map(ctx.redact).join('\n')}\n`);
  }
}

function writeReportFile(ctx: ReportContext, path: string, write: (path: string) => void): boolean {
  try {
    write(path);
    return true;
  } catch (error) {
    ctx.printer.warn(`could not write the report to ${path}: ${fsReason(error)}`);
    return false;
  }
}

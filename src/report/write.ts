/**
 * `--report` for `show`, `wait` and `create --wait`: parse the specs (`junit=FILE`, `github`) when the flag is read, so a
 * typo fails before anything is created, and write the reports at the end. The builders load only when used.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { InvalidArgumentError, Option } from 'commander';
import type { ApiClient } from '../api/client.js';
import type { Task } from '../api/schemas.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';

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

/** Each task once more with GET /tasks/:id, for its items (polling reads task summaries only). */
export async function fetchWithItems(api: Pick<ApiClient, 'getTask'>, tasks: readonly Task[]): Promise<Task[]> {
  const full: Task[] = [];
  for (const task of tasks) full.push(task.items ? task : await api.getTask(task.id));
  return full;
}

/** Writes every requested report for `tasks` (which should carry their items). */
export async function writeReports(ctx: Context, specs: readonly ReportSpec[], tasks: readonly Task[]): Promise<void> {
  const junitPaths = [...new Set(specs.flatMap((spec) => (spec.kind === 'junit' ? [spec.path] : [])))];
  if (junitPaths.length > 0) {
    const { junitReport } = await import('./junit.js');
    const xml = ctx.redact(junitReport(tasks));
    for (const path of junitPaths) {
      writeReportFile(path, (file) => {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, xml);
      });
      ctx.printer.info(`wrote the JUnit report to ${path}`);
    }
  }
  if (specs.some((spec) => spec.kind === 'github')) {
    const { githubAnnotations, githubSummary } = await import('./github.js');
    const summaryFile = ctx.env.GITHUB_STEP_SUMMARY;
    if (summaryFile) writeReportFile(summaryFile, (file) => appendFileSync(file, ctx.redact(githubSummary(tasks))));
    else
      ctx.printer.warn(
        '--report github: GITHUB_STEP_SUMMARY is not set (not in GitHub Actions?), so there is no job summary; annotations only',
      );
    // Workflow commands go to stderr: the runner reads both streams for them, and stdout stays data.
    const annotations = githubAnnotations(tasks);
    if (annotations.length > 0) ctx.io.stderr.write(`${annotations.map(ctx.redact).join('\n')}\n`);
  }
}

function writeReportFile(path: string, write: (path: string) => void): void {
  try {
    write(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`cannot write the report to ${path}: ${code}`, 'Check the path and its permissions.');
  }
}

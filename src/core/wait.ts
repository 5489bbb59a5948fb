/**
 * `taskctl wait`: the tasks named by ids (arguments or stdin) or by a journaled job (`--job FILE`), handed to the one
 * wait loop (core/follow/wait-loop.ts). Kept apart from that loop, which `--job` uses too.
 */
import type { Capabilities, Output, Process, Service } from './capabilities.js';
import { UsageError } from '../errors.js';
import { eachChunk } from '../lib/abortable.js';
import { parseTaskId } from '../lib/task-id.js';
import { formatCount } from '../output/numbers.js';
import { checkReportTargets } from '../report/write.js';
import { waitForTasks, type WaitOptions } from './follow/wait-loop.js';

/** `taskctl wait`: report paths checked before waiting, the ids (arguments or stdin), then the one wait loop. */
export async function runWait(
  ctx: Capabilities,
  args: string[],
  options: WaitOptions & { job?: string; journal?: string },
): Promise<void> {
  const { jobOrIds } = await import('./job/args.js');
  const job = jobOrIds('wait', args, options);
  if (job !== undefined) return (await import('./job/wait-job.js')).runWaitJob(ctx, job, options);
  checkReportTargets(options.report, { env: ctx.env });
  const read = new Set<number>();
  let ids: number[];
  try {
    ids = await resolveIds(ctx, args, read);
  } catch (error) {
    // Stopped while reading stdin: the ids read so far are named, with the command that waits for them.
    if (!ctx.signal.aborted || read.size === 0) throw error;
    return (await import('./follow/wait-loop.js')).stoppedReadingIds(ctx, [...read], options);
  }
  // Only a pipe can give none. Nothing to wait for is done (exit 0), not misuse: `retry 42 -q | taskctl wait -` when
  // nothing needed a retry. The pipeline's other commands speak for themselves with `set -o pipefail`.
  if (ids.length === 0) ctx.printer.info('nothing to wait for: no task ids on stdin');
  await waitForTasks(ctx, ids, options);
}

/** Ids from arguments, or from stdin with `-`: the words of each line, a tsv row's first field (so tsv pipes work). */
async function resolveIds(
  ctx: Output & Pick<Process, 'signal'> & Pick<Service, 'globals'>,
  args: string[],
  read: Set<number>,
): Promise<number[]> {
  if (!args.includes('-')) {
    const ids = [...new Set(args.map(parseTaskId))];
    if (ids.length > MAX_WAIT_IDS) throw tooManyIds('given');
    return ids;
  }
  if (args.length > 1) throw new UsageError('give task ids as arguments or - for stdin, not both');
  if (ctx.globals.apiKeyFile === '-')
    throw new UsageError(
      'stdin cannot carry both the API key (--api-key-file -) and the task ids',
      'Give the ids as arguments, or the key from a file.',
    );
  if (ctx.io.stdin.isTTY)
    throw new UsageError(
      '- reads task ids from stdin, but stdin is a terminal',
      'Pipe them in: `taskctl create ... -q | taskctl wait -`.',
    );
  return readIdLines(ctx.io.stdin, ctx.signal, read);
}

/**
 * The longest line `wait -` reads (UTF-16 code units, as the items readers count): room for a tsv row with its other
 * columns, while a stdin with no line breaks (`/dev/zero`, a binary file) is refused once it passes this, never held.
 */
const ID_LINE_MAX_CHARS = 64 * 1024;

/**
 * The most distinct tasks one wait follows: its memory grows with them (about 700 bytes a task), and a round reads
 * one list page a hundred of them. More is exit 2 naming how to wait in parts, never a wait that outgrows the machine.
 */
const MAX_WAIT_IDS = 100_000;

function tooManyIds(where: string): UsageError {
  const most = formatCount(MAX_WAIT_IDS);
  return new UsageError(
    `more than ${most} task ids ${where}; one wait follows at most ${most}`,
    `Wait for them in parts (\`split -l ${MAX_WAIT_IDS} ids.txt part-\`, then \`taskctl wait - < part-aa\` for each), or for a job's tasks with \`taskctl wait --job ID\`.`,
  );
}

/**
 * The task ids of each line (its words, or a tsv row's first field; `#` starts a comment), read a chunk at a time into `ids`. A
 * signal ends the read at once (a producer still running): exit 130/143, the ids read so far in `ids` for the caller to
 * name, none "still running" (none was read from the service).
 */
async function readIdLines(
  stdin: AsyncIterable<Buffer | string>,
  signal: AbortSignal,
  ids: Set<number>,
): Promise<number[]> {
  const take = (line: string) => {
    // A tsv row (`list -o tsv`) is its first field; otherwise every word is an id (`echo $ids | taskctl wait -`), up
    // to a comment: a word that is no id is refused, never skipped, so no id on the line goes unread.
    const words = line.includes('\t') ? [line.split('\t')[0]?.trim() ?? ''] : line.trim().split(/\s+/);
    for (const word of words) {
      if (word.startsWith('#')) return;
      if (word !== '') ids.add(parseTaskId(word));
      if (ids.size > MAX_WAIT_IDS) throw tooManyIds('on stdin');
    }
  };
  const decoder = new TextDecoder();
  let partial = '';
  const ended = await eachChunk(stdin, signal, (chunk) => {
    const lines = (partial + (typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }))).split('\n');
    partial = lines.pop() ?? '';
    lines.forEach(take);
    return partial.length <= ID_LINE_MAX_CHARS;
  });
  if (!ended)
    throw new UsageError(
      'stdin has a line longer than 64 Ki characters, which holds no task id; stopped reading',
      'Pipe task ids in, one per line: `taskctl list --status processing -q | taskctl wait -`.',
    );
  take(partial + decoder.decode());
  return [...ids];
}

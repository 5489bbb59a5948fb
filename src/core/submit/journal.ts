/**
 * A journaled create (`create --journal FILE`) and its continuation (`taskctl resume FILE`). The journal (JSON lines,
 * store/journal.ts) holds the job (service, options, inputs by absolute path, size and digest, the cleaned items'
 * digest), then for each chunk every state change, each fsynced before the step it guards:
 *   send       about to POST chunk N: its item range and digest, when, and the tasks that existed before
 *   created    chunk N is task T (answered, recovered, or reused)
 *   unknown    the POST's outcome could not be settled (exit 9): the job stops at chunk N
 *   reconciled an in-flight chunk settled at resume: task T adopted, or null (proven never created: sent again)
 *   done       every chunk has its task
 * From any prefix of it the truth is rebuilt: a chunk with a task is never sent again; a chunk caught in flight is
 * settled by the exactly-once rules (core/reconcile.ts: the window rule, the ledger) once its send time plus the POST's
 * deadline and the reconciliation horizon has passed; only a chunk proven never created is sent. Each chunk's entry in
 * the local ledger (store/ledger.ts) carries the job (journal path and chunk): resume takes it over as its own.
 */
import { createHash, type Hash } from 'node:crypto';
import { resolve } from 'node:path';
import * as z from '../../lib/zod.js';
import type { ApiClient } from '../../api/client.js';
import type { Task } from '../../api/schemas.js';
import type { Context } from '../context.js';
import {
  CliError,
  CreateUnknownError,
  ExitCode,
  InterruptedBeforeSendError,
  InterruptedError,
  UsageError,
} from '../../errors.js';
import type { ItemSource, PreparedItems } from '../items/index.js';
import { counted, formatCount } from '../items/clean.js';
import { formatFromPath } from '../items/formats.js';
import { InputCopy, inputSize, JournalFile, writeArgumentsCopy } from '../../store/journal.js';
import { waitForTasks, type WaitOptions } from '../follow/wait.js';
import { taskColumns } from '../../output/task-columns.js';
import type { Progress } from '../../output/progress.js';
import { confirmCost } from './confirm.js';
import { pricePerItem } from './price.js';
import { itemSources, prepareItems, type ReadOptions } from './read.js';
import { crashPoint } from './crash-point.js';
import { createOne, postTimeoutMs, sendState, type SendState } from './send.js';
import type { MatchResult, Snapshot } from '../reconcile.js';
import type { LocalCreates } from './local-runs.js';
import type { SubmitOptions } from './types.js';

const FORMATS = ['lines', 'json', 'ndjson', 'csv'] as const;
const chunkNo = z.number().int().positive();

const InputSchema = z.object({
  kind: z.enum(['file', 'stdin', 'args']),
  /** Absolute path read at resume: the file itself, or the copy beside the journal (stdin, arguments). */
  path: z.string(),
  format: z.enum(FORMATS),
  size: z.number().int().nonnegative(),
  sha256: z.string(),
});
type JobInput = z.infer<typeof InputSchema>;

const JobSchema = z.object({
  type: z.literal('job'),
  version: z.literal(1),
  created_at: z.string(),
  service: z.string(),
  base_url: z.string(),
  account: z.string(),
  chunk_size: z.number().int().positive(),
  format: z.enum(FORMATS).nullable(),
  column: z.string().nullable(),
  validate: z.boolean(),
  keep_duplicates: z.boolean(),
  skip_invalid: z.boolean(),
  inputs: z.array(InputSchema),
  items: z.number().int().nonnegative(),
  items_sha256: z.string(),
  chunks: z.number().int().nonnegative(),
  /** `retry --job SOURCE --journal FILE`: the job retried (its journal's absolute path) and the --error filters. */
  retry_of: z.object({ journal: z.string(), error: z.array(z.string()) }).optional(),
});
export type Job = z.infer<typeof JobSchema>;

const SendSchema = z.object({
  type: z.literal('send'),
  chunk: chunkNo,
  first: z.number().int().nonnegative(),
  count: z.number().int().positive(),
  sha256: z.string(),
  sent_at: z.number(),
  /** Epoch ms after which the POST can no longer land (its deadline): an in-flight chunk is settled after it. */
  settle_after: z.number(),
  before: z.array(z.number()),
  before_complete: z.boolean(),
});
type SendRecord = z.infer<typeof SendSchema>;

const RecordSchema = z.discriminatedUnion('type', [
  JobSchema,
  SendSchema,
  z.object({ type: z.literal('created'), chunk: chunkNo, task: z.number(), cost: z.number(), how: z.string() }),
  z.object({ type: z.literal('unknown'), chunk: chunkNo, candidates: z.array(z.number()), reason: z.string() }),
  z.object({
    type: z.literal('reconciled'),
    chunk: chunkNo,
    task: z.number().nullable(),
    cost: z.number(),
    /** scan: the exactly-once rules; answer: the server refused the POST (a 4xx), so it created nothing; user. */
    by: z.enum(['scan', 'answer', 'user']),
  }),
  z.object({ type: z.literal('done'), tasks: z.number(), items: z.number(), cost: z.number() }),
]);
type JournalRecord = z.infer<typeof RecordSchema>;

/** What the journal says about one chunk. */
export interface ChunkState {
  send?: SendRecord;
  task?: { id: number; cost: number };
  unknown?: boolean;
}

export interface JobState {
  job: Job;
  chunks: Map<number, ChunkState>;
  done: boolean;
}

export interface ResumeOptions extends SubmitOptions {
  /** `--adopt CHUNK=ID`: chunk CHUNK (in flight) is task ID. */
  adopt?: string[];
  /** `--resend CHUNK`: chunk CHUNK (in flight) was not created; send it. */
  resend?: string[];
}

/** Exit codes of a POST the server answered with a refusal (invalid, auth, not found, balance, rate limit, unknown
 * code): it created nothing. */
const REFUSED: ReadonlySet<number> = new Set([
  ExitCode.input,
  ExitCode.auth,
  ExitCode.notFound,
  ExitCode.balance,
  ExitCode.rateLimited,
  ExitCode.refused,
]);

/** Margin past a POST's deadline before its chunk is settled (the server's clock, the last bytes on the wire). */
const SETTLE_MARGIN_MS = 2_000;
/** Progress lines for long submissions: at most one a second (and the last). */
const PROGRESS_EVERY_MS = 1_000;

export function rebuild(records: readonly unknown[], path: string): JobState | undefined {
  if (records.length === 0) return undefined;
  const parsed: JournalRecord[] = records.map((raw, index) => {
    const result = RecordSchema.safeParse(raw);
    if (!result.success) {
      throw new UsageError(
        `the journal ${path} has an unknown record at line ${index + 1} (${result.error.issues[0]?.message ?? 'invalid'})`,
        'Is it a taskctl journal, written by this version?',
      );
    }
    return result.data;
  });
  const [first] = parsed;
  if (first?.type !== 'job') throw new UsageError(`the journal ${path} does not start with its job record`);
  const chunks = new Map<number, ChunkState>();
  let done = false;
  for (const record of parsed.slice(1)) {
    if (record.type === 'job') throw new UsageError(`the journal ${path} holds two jobs`);
    if (record.type === 'done') {
      done = true;
      continue;
    }
    const state = chunks.get(record.chunk) ?? {};
    chunks.set(record.chunk, state);
    if (record.type === 'send') {
      state.send = record;
      state.unknown = false;
    } else if (record.type === 'created') state.task = { id: record.task, cost: record.cost };
    else if (record.type === 'unknown') state.unknown = true;
    else if (record.task !== null) state.task = { id: record.task, cost: record.cost };
    else chunks.set(record.chunk, {}); // proven never created: to be sent
  }
  return { job: first, chunks, done };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Reads the items of `sources`, with a digest of each source's bytes. */
async function readWithDigests(
  ctx: Context,
  service: string,
  sources: ItemSource[],
  options: ReadOptions,
  copies = new Map<number, InputCopy>(),
): Promise<{ prepared: PreparedItems; digests: Array<{ size: number; sha256: string }> }> {
  const hashes: Hash[] = sources.map(() => createHash('sha256'));
  const sizes = sources.map(() => 0);
  const prepared = await prepareItems(ctx, service, [], options, {
    sources,
    onBytes: (index, bytes) => {
      hashes[index]?.update(bytes);
      sizes[index] = (sizes[index] ?? 0) + bytes.length;
      copies.get(index)?.write(bytes);
    },
  });
  return { prepared, digests: hashes.map((hash, index) => ({ size: sizes[index] ?? 0, sha256: hash.digest('hex') })) };
}

/** `create --journal FILE`: starts the job, or continues it when the journal has one with the same input and options. */
export async function runJournaledCreate(
  ctx: Context,
  service: string,
  args: string[],
  options: ReadOptions & SubmitOptions & { journal: string; retryOf?: Job['retry_of'] },
): Promise<void> {
  const path = resolve(options.journal);
  const journal = JournalFile.open(path);
  try {
    const state = rebuild(journal.records, path);
    if (state?.done) {
      throw new UsageError(
        `the job in ${options.journal} is finished`,
        `Use a new journal path for a new job (\`taskctl resume ${options.journal}\` prints its summary).`,
      );
    }
    const api = await ctx.api();
    const chunkSize = options.chunkSize ?? Number.MAX_SAFE_INTEGER;
    const wanted = {
      service,
      base_url: api.baseUrl,
      account: ctx.cache.account ?? '',
      chunk_size: chunkSize,
      format: options.format ?? null,
      column: options.column ?? null,
      validate: options.validate !== false,
      keep_duplicates: options.keepDuplicates === true,
      skip_invalid: options.skipInvalid === true,
    };
    const given = itemSources(ctx, args, options.file);
    if (state) {
      const differs = (Object.keys(wanted) as Array<keyof typeof wanted>).filter(
        (key) => wanted[key] !== state.job[key],
      );
      if (differs.length > 0) throw mismatch(options.journal, differs.map(describeOption));
      // Same sources, same bytes: read them again (stdin is not copied a second time) and compare the digests.
      const read = await readWithDigests(ctx, service, given, options);
      try {
        const changed = compareInputs(state.job.inputs, given, read.digests);
        if (changed.length > 0) throw mismatch(options.journal, changed);
        checkItems(state.job, read.prepared, options.journal);
        await continueJob(ctx, api, journal, state, read.prepared, options, 'Create');
      } finally {
        read.prepared.dispose();
      }
      return;
    }
    // A new job: stdin (and arguments) are copied beside the journal as they stream, so a resume can read them back.
    const copies = new Map<number, InputCopy>();
    const sources = given.map((source, index): ItemSource => {
      if (source.kind === 'stdin') copies.set(index, new InputCopy(`${path}.input`));
      if (source.kind === 'args') return writeArgsCopy(`${path}.args`, source.values);
      return source;
    });
    const read = await readWithDigests(ctx, service, sources, options, copies);
    try {
      for (const copy of copies.values()) copy.finish();
      const inputs = sources.map((source, index): JobInput => {
        const digest = read.digests[index] ?? { size: 0, sha256: '' };
        const copy = copies.get(index);
        if (copy) return { kind: 'stdin', path: copy.path, format: options.format ?? 'lines', ...digest };
        if (source.kind !== 'file') throw new Error('unreachable: sources are files or stdin here');
        const kind = source.format === 'ndjson' && source.path === `${path}.args` ? 'args' : 'file';
        return {
          kind,
          path: resolve(source.path),
          format: source.format ?? options.format ?? formatFromPath(source.path),
          ...digest,
        };
      });
      const prepared = read.prepared;
      const job: Job = {
        type: 'job',
        version: 1,
        created_at: new Date(ctx.clock.now()).toISOString(),
        ...wanted,
        inputs,
        items: prepared.count,
        items_sha256: prepared.digest,
        chunks: Math.ceil(prepared.count / chunkSize),
        ...(options.retryOf && { retry_of: options.retryOf }),
      };
      journal.append(job);
      await continueJob(ctx, api, journal, { job, chunks: new Map(), done: false }, prepared, options, 'Create');
    } finally {
      read.prepared.dispose();
    }
  } finally {
    journal.close();
  }
}

/** Arguments are journaled as a copy (one JSON string a line, store/journal.ts), read back as NDJSON. */
function writeArgsCopy(path: string, values: readonly string[]): ItemSource {
  writeArgumentsCopy(path, values);
  return { kind: 'file', path, format: 'ndjson' };
}

function compareInputs(
  recorded: readonly JobInput[],
  given: readonly ItemSource[],
  digests: ReadonlyArray<{ size: number; sha256: string }>,
): string[] {
  const kinds = given.map((source) => source.kind);
  if (kinds.length !== recorded.length || kinds.some((kind, i) => kind !== recorded[i]?.kind)) {
    return [`the inputs (${kinds.join(', ')}; the job read ${recorded.map((input) => input.kind).join(', ')})`];
  }
  const changed: string[] = [];
  given.forEach((source, i) => {
    const input = recorded[i];
    if (!input) return;
    if (source.kind === 'file' && resolve(source.path) !== input.path)
      changed.push(`input ${i + 1} (${source.path}; the job read ${input.path})`);
    // Arguments were journaled as a copy; their bytes differ from the copy's, so the items' digest decides for them.
    else if (source.kind !== 'args' && digests[i]?.sha256 !== input.sha256) {
      changed.push(`the content of ${source.kind === 'stdin' ? 'stdin' : source.path}`);
    }
  });
  return changed;
}

function checkItems(job: Job, prepared: PreparedItems, name: string): void {
  if (prepared.count !== job.items || prepared.digest !== job.items_sha256) {
    throw mismatch(name, [
      `the items (${formatCount(prepared.count)} now, ${formatCount(job.items)} when the job started)`,
    ]);
  }
}

function mismatch(name: string, what: readonly string[]): UsageError {
  return new UsageError(
    `the journal ${name} belongs to another job: ${what.join('; ')} differ${what.length === 1 ? 's' : ''}`,
    `Give the same input and options to continue it (or run \`taskctl resume ${name}\`), or use a new journal path.`,
  );
}

function describeOption(key: string): string {
  const names: Record<string, string> = {
    service: 'the service',
    base_url: 'the base URL',
    account: 'the account (API key)',
    chunk_size: '--chunk-size',
    format: '--format',
    column: '--column',
    validate: '--no-validate',
    keep_duplicates: '--keep-duplicates',
    skip_invalid: '--skip-invalid',
  };
  return names[key] ?? key;
}

/** `taskctl resume FILE`: continues the job from the journal's inputs, checked against their recorded size and digest. */
export async function runResume(ctx: Context, file: string, options: ResumeOptions): Promise<void> {
  const path = resolve(file);
  const journal = JournalFile.open(path);
  try {
    const state = rebuild(journal.records, path);
    if (!state)
      // The job record goes to disk before any chunk is sent: a create killed before it sent nothing.
      throw new UsageError(
        `${file} holds no job (a create stopped before recording one sent nothing)`,
        'Start it again with the same `taskctl create SERVICE -f FILE --chunk-size N --journal FILE`.',
      );
    const { job } = state;
    const api = await ctx.api();
    if (api.baseUrl !== job.base_url)
      throw mismatch(file, [`the base URL (${api.baseUrl}; the job used ${job.base_url})`]);
    if ((ctx.cache.account ?? '') !== job.account) throw mismatch(file, ['the account (API key)']);
    if (state.done) {
      printSummary(ctx, state, 0, file);
      if (options.wait) await waitForTasks(ctx, taskIds(state), options as WaitOptions);
      return;
    }
    for (const input of job.inputs) {
      let size: number;
      try {
        size = inputSize(input.path);
      } catch (error) {
        throw new UsageError(
          `cannot read ${input.path}, an input of the job: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        );
      }
      if (size !== input.size) {
        throw mismatch(file, [
          `${input.path} (${formatCount(size)} bytes now, ${formatCount(input.size)} when the job started)`,
        ]);
      }
    }
    const readOptions: ReadOptions = {
      ...(job.format !== null && { format: job.format }),
      ...(job.column !== null && { column: job.column }),
      validate: job.validate,
      keepDuplicates: job.keep_duplicates,
      skipInvalid: job.skip_invalid,
    };
    const sources = job.inputs.map((input): ItemSource => ({ kind: 'file', path: input.path, format: input.format }));
    const read = await readWithDigests(ctx, job.service, sources, readOptions);
    try {
      const changed = job.inputs
        .filter((input, i) => read.digests[i]?.sha256 !== input.sha256)
        .map((input) => `the content of ${input.path}`);
      if (changed.length > 0) throw mismatch(file, changed);
      checkItems(job, read.prepared, file);
      const shared = await sendState(ctx, api);
      await settleByUser(ctx, api, journal, state, options, shared.local);
      await continueJob(
        ctx,
        api,
        journal,
        state,
        read.prepared,
        { ...options, chunkSize: job.chunk_size },
        'Resume',
        file,
        shared,
      );
    } finally {
      read.prepared.dispose();
    }
  } finally {
    journal.close();
  }
}

function parseChunk(text: string, flag: string, state: JobState): number {
  const chunk = Number(text);
  if (!Number.isInteger(chunk) || chunk < 1 || chunk > state.job.chunks) {
    throw new UsageError(`${flag}: no chunk ${JSON.stringify(text)} (the job has chunks 1 to ${state.job.chunks})`);
  }
  const current = state.chunks.get(chunk);
  if (current?.task || !current?.send) {
    throw new UsageError(
      `${flag} ${chunk}: chunk ${chunk} is not in doubt (${current?.task ? `it is task ${current.task.id}` : 'it was never sent'})`,
      'Only a chunk the job stopped on with exit 9 can be settled by hand.',
    );
  }
  return chunk;
}

/** `--adopt CHUNK=ID` and `--resend CHUNK`: the user's word on chunks the rules could not settle. */
async function settleByUser(
  ctx: Context,
  api: ApiClient,
  journal: JournalFile,
  state: JobState,
  options: ResumeOptions,
  local: LocalCreates,
): Promise<void> {
  for (const text of options.adopt ?? []) {
    const match = /^(\d+)=(\d+)$/.exec(text.trim());
    if (!match) throw new UsageError(`--adopt ${JSON.stringify(text)}: expected CHUNK=TASK_ID, e.g. --adopt 7=1234`);
    const chunk = parseChunk(match[1] ?? '', '--adopt', state);
    const id = Number(match[2]);
    if (taskIds(state).includes(id)) throw new UsageError(`--adopt ${text}: task ${id} is already another chunk's`);
    // Read, so that the job's cost counts it and a task of another service is refused (a typo in the id).
    const task = await api.getTask(id);
    if (task.service !== state.job.service) {
      throw new UsageError(
        `--adopt ${text}: task ${id} is a ${task.service} task, not ${state.job.service}`,
        'Check the candidates the job named: taskctl show ID',
      );
    }
    journal.append({ type: 'reconciled', chunk, task: id, cost: task.cost, by: 'user' });
    local.settleJob({ journal: journal.path, chunk }, id);
    state.chunks.set(chunk, { task: { id, cost: task.cost } });
    ctx.printer.info(`chunk ${chunk}: task ${id} adopted`);
  }
  for (const text of options.resend ?? []) {
    const chunk = parseChunk(text.trim(), '--resend', state);
    journal.append({ type: 'reconciled', chunk, task: null, cost: 0, by: 'user' });
    local.settleJob({ journal: journal.path, chunk }, null);
    state.chunks.set(chunk, {});
    ctx.printer.info(`chunk ${chunk}: will be sent again`);
  }
}

function taskIds(state: JobState): number[] {
  return [...state.chunks.entries()]
    .sort(([a], [b]) => a - b)
    .flatMap(([, chunk]) => (chunk.task ? [chunk.task.id] : []));
}

export function chunkItems(job: Job, chunk: number): number {
  return Math.max(0, Math.min(job.chunk_size, job.items - (chunk - 1) * job.chunk_size));
}

function printSummary(ctx: Context, state: JobState, createdNow: number, name: string): void {
  const tasks = taskIds(state).length;
  const cost = [...state.chunks.values()].reduce((sum, chunk) => sum + (chunk.task?.cost ?? 0), 0);
  ctx.printer.success(
    `job ${name}: ${counted(tasks, 'task')} for ${counted(state.job.items, 'item')}, ${counted(cost, 'coin')}` +
      (createdNow < tasks ? ` (${formatCount(createdNow)} by this run)` : ''),
  );
}

async function continueJob(
  ctx: Context,
  api: ApiClient,
  journal: JournalFile,
  state: JobState,
  prepared: PreparedItems,
  options: SubmitOptions,
  verb: 'Create' | 'Resume',
  name = journal.path,
  /** The server's clock and the ledger, when the caller already opened them (resume's --adopt and --resend). */
  opened?: SendState,
): Promise<void> {
  const { job } = state;
  const total = job.chunks;
  const open = Array.from({ length: total }, (_, i) => i + 1).filter((chunk) => !state.chunks.get(chunk)?.task);
  const remaining = open.reduce((sum, chunk) => sum + chunkItems(job, chunk), 0);
  if (remaining > 0) {
    const guardsMoney = options.maxCost !== undefined || (ctx.interactive && options.yes !== true);
    const price = await pricePerItem(ctx, api, job.service, guardsMoney);
    const list = { count: remaining, chunks: () => [] };
    const batch = {
      service: job.service,
      list,
      size: job.chunk_size,
      tasks: open.length,
      price,
      estimate: price * remaining,
    };
    await confirmCost(ctx, api, [batch], options, verb);
  }
  const timeoutMs = await postTimeoutMs(ctx);
  // The server's clock and the local ledger, shared by every chunk; each chunk's ledger entry carries the job.
  const shared = opened ?? (await sendState(ctx, api));
  const claimed = new Set(taskIds(state));
  const quiet = ctx.globals.quiet === true;
  const out =
    quiet || options.wait ? undefined : ctx.printer.stream(taskColumns(ctx.printer.paintStatus), (task: Task) => task);
  let createdNow = 0;
  let sentItems = 0;
  let spent = 0;
  let lastProgress = Number.NEGATIVE_INFINITY;
  // On a terminal the progress is one live line (made at the first send: a chunk in flight is settled before, with
  // lines of its own), what spins inside a send (retries, rate-limit waits) shown in it; elsewhere plain lines.
  let live: Progress | undefined;
  let said = '';
  let notice: string | undefined;
  const goLive = async (): Promise<Progress | undefined> => {
    if (live || total < 2 || quiet) return live;
    const progress = await ctx.printer.progress();
    if (progress.mode !== 'live') return undefined;
    live = progress;
    progress.live((spin) => [`${progress.paint.cyan(spin)} ${notice ?? said}`]);
    return live;
  };
  const stopped = (chunk: number, error: unknown): unknown => {
    const failure =
      error instanceof CliError ? error : ctx.signal.aborted ? new InterruptedError('interrupted') : undefined;
    if (!failure) return error;
    return new CliError(
      `${failure.message}\nthe job stopped at chunk ${chunk} of ${total} (${formatCount(taskIds(state).length)} of ${counted(total, 'task')} created)`,
      failure.exitCode,
      `${failure.hint ? `${failure.hint}\n` : ''}Continue it with: taskctl resume ${name}`,
    );
  };
  const record = (chunk: number, task: Task, how: string) => {
    journal.append({ type: 'created', chunk, task: task.id, cost: task.cost, how });
    state.chunks.set(chunk, { task: { id: task.id, cost: task.cost } });
    claimed.add(task.id);
    createdNow++;
    ctx.cache.rememberTasks([task]);
    if (quiet) ctx.printer.line(String(task.id));
    else if (live) live.interject(() => out?.write([task]));
    else out?.write([task]);
  };
  try {
    let chunk = 0;
    let first = 0;
    for (const items of prepared.chunks(job.chunk_size)) {
      chunk++;
      const start = first;
      first += items.length;
      const current = state.chunks.get(chunk) ?? {};
      if (current.task) continue;
      const digest = sha256(items.join('\n'));
      const what = `chunk ${chunk} of ${total}`;
      try {
        if (current.send) {
          if (current.send.sha256 !== digest) throw mismatch(name, [`the items of chunk ${chunk}`]);
          const sending = { ...shared, job: { journal: journal.path, chunk } };
          const task = await settleInFlight(
            ctx,
            api,
            sending,
            job.service,
            items,
            current.send,
            claimed,
            name,
            journal,
          );
          if (task) {
            record(chunk, task, 'recovered');
            continue;
          }
          state.chunks.set(chunk, {});
        }
        const beforePost = (before: Snapshot) => {
          const now = ctx.clock.now();
          const send: SendRecord = {
            type: 'send',
            chunk,
            first: start,
            count: items.length,
            sha256: digest,
            sent_at: now,
            settle_after: now + timeoutMs + SETTLE_MARGIN_MS,
            before: [...before.ids],
            before_complete: before.complete,
          };
          journal.append(send);
          state.chunks.set(chunk, { send });
          crashPoint(ctx.env, 'sent', chunk);
        };
        const sendOne: SendState = { ...shared, job: { journal: journal.path, chunk }, beforePost };
        const send = () => createOne(ctx, api, { service: job.service, items }, options, claimed, what, sendOne);
        said ||= `creating ${what}…`;
        const line = await goLive();
        const show = (text: string) => {
          notice = text;
          line?.refresh();
        };
        const outcome = line ? await ctx.spinInto(`creating ${what}`, show, send) : await send();
        notice = undefined;
        crashPoint(ctx.env, 'answered', chunk);
        record(chunk, outcome.task, outcome.how);
        sentItems += items.length;
        if (outcome.how !== 'reused') spent += outcome.task.cost;
      } catch (error) {
        if (state.chunks.get(chunk)?.send) {
          if (error instanceof CreateUnknownError) {
            journal.append({ type: 'unknown', chunk, candidates: [], reason: error.message });
          } else if (error instanceof InterruptedBeforeSendError) {
            // The POST never left (Ctrl-C during the rate-limit wait): nothing to settle, the chunk is sent next time.
            journal.append({ type: 'reconciled', chunk, task: null, cost: 0, by: 'answer' });
          } else if (error instanceof CliError && REFUSED.has(error.exitCode)) {
            // The server answered the POST with a refusal: nothing was created, and the chunk is sent again next time.
            journal.append({ type: 'reconciled', chunk, task: null, cost: 0, by: 'answer' });
          }
        }
        throw stopped(chunk, error);
      }
      const now = ctx.clock.now();
      const done = taskIds(state).length;
      const progress = `${what}: ${formatCount(done)} of ${counted(total, 'task')} created; ${formatCount(sentItems)} items and ${counted(spent, 'coin')} by this run`;
      if (live) {
        said = progress;
        live.refresh();
      } else if (total > 1 && (now - lastProgress >= PROGRESS_EVERY_MS || chunk === total)) {
        lastProgress = now;
        ctx.printer.info(progress);
      }
    }
    journal.append({
      type: 'done',
      tasks: taskIds(state).length,
      items: job.items,
      cost: [...state.chunks.values()].reduce((sum, c) => sum + (c.task?.cost ?? 0), 0),
    });
  } finally {
    // The live line goes; the summary below is what stays.
    live?.stop();
    await out?.end();
  }
  printSummary(ctx, state, createdNow, name);
  if (options.wait) await waitForTasks(ctx, taskIds(state), options as WaitOptions);
}

/**
 * A chunk whose POST may have been in flight when the job stopped, settled by the exactly-once rules
 * (core/reconcile.ts): its ledger entry is taken over as this run's own (other local runs keep counting it as a
 * possible creator, and this run may adopt its task), then the task list is observed to the horizon counted from the
 * POST's deadline (send time + deadline + horizon, as for a create whose answer was lost), against what existed
 * before it was sent and in the window in which it could have been processed. One unclaimed identical task → it is
 * this chunk's; none → never created (undefined: send it); otherwise exit 9 naming the chunk and the candidates.
 */
async function settleInFlight(
  ctx: Context,
  api: ApiClient,
  state: SendState & { job: { journal: string; chunk: number } },
  service: string,
  items: string[],
  send: SendRecord,
  claimed: ReadonlySet<number>,
  name: string,
  journal: JournalFile,
): Promise<Task | undefined> {
  const { chunk } = state.job;
  const { reconcileCreate, reconcileWindowMs } = await import('../reconcile.js');
  const entry = state.local.takeOver(state.job, service, items, send.sent_at);
  // No answer came: the POST could have been processed until its deadline (recorded at send), and is then observed
  // for the horizon, as a create that timed out would be.
  const failedAtMs = send.settle_after;
  const until = failedAtMs + reconcileWindowMs({ sentAtMs: send.sent_at, failedAtMs });
  const wait = until - ctx.clock.now();
  ctx.printer.info(
    wait > 0
      ? `chunk ${chunk} was being sent when the job stopped: checking the task list for it (for ${Math.ceil(wait / 1000)}s)…`
      : `chunk ${chunk} was being sent when the job stopped: checking the task list for it…`,
  );
  let result: MatchResult;
  try {
    result = await reconcileCreate(api, {
      service,
      items,
      sentAtMs: send.sent_at,
      before: { ids: new Set(send.before), complete: send.before_complete },
      exclude: claimed,
      failedAtMs,
      answered: false,
      clock: ctx.clock,
      serverClock: state.serverClock,
      signal: ctx.signal,
      local: state.local.runs(entry, state.serverClock),
    });
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    result = { kind: 'unread', why: error instanceof Error ? error.message : String(error) };
  }
  if (result.kind === 'found') {
    journal.append({ type: 'reconciled', chunk, task: result.task.id, cost: result.task.cost, by: 'scan' });
    ctx.printer.info(`chunk ${chunk}: task ${result.task.id} was created by the interrupted request`);
    return result.task;
  }
  if (result.kind === 'none') {
    // Not created within the horizon: the chunk is sent again, and its earlier entry must not contest the new one.
    state.local.settleJob(state.job, null);
    journal.append({ type: 'reconciled', chunk, task: null, cost: 0, by: 'scan' });
    ctx.printer.info(`chunk ${chunk}: not created by the interrupted request; sending it`);
    return undefined;
  }
  // Unsure: still a possible creator for other local runs, of tasks stamped before this check ended.
  state.local.unknown(entry, ctx.clock.now());
  const ids = result.kind === 'unread' ? [] : result.ids;
  const why =
    result.kind === 'ambiguous'
      ? `several new identical tasks (${ids.join(', ')}) could be it`
      : result.kind === 'unproven'
        ? `task ${ids.join(', ')} matches, but the task list could not be read in full before it was sent`
        : result.kind === 'contested'
          ? `task ${ids.join(', ')} matches, but ${result.by}, so it may be that run's`
          : result.kind === 'unfinished'
            ? `task ${ids.join(', ')} matches, but the task list could not be read at the end of the check`
            : `the task list could not be read${result.why ? ` (${result.why})` : ''}`;
  journal.append({ type: 'unknown', chunk, candidates: ids, reason: why });
  throw new CreateUnknownError(
    `chunk ${chunk} (${service}, ${counted(items.length, 'item')}, sent ${new Date(send.sent_at).toISOString()}) may have been created: ${why}`,
    ids.length > 0
      ? `Look at them (taskctl show ${ids.join(' ')}), then: taskctl resume ${name} --adopt ${chunk}=ID, or --resend ${chunk} if none is this chunk's.`
      : `Try again later: taskctl resume ${name} (or settle it: --adopt ${chunk}=ID, --resend ${chunk}).`,
  );
}

/**
 * A journaled create (`create --journal FILE`) and its continuation (`taskctl resume FILE`). Both check what must
 * match (options, input digests) before any wait or request, say where the job stands, then run the one pipeline
 * (pipeline.ts) with the journal as its observer (job-journal.ts); chunks left in doubt are settled (settle.ts) after
 * the money guard and before anything is sent. Each chunk's entry in the local ledger (store/ledger.ts) carries the
 * job (journal path and chunk): resume takes it over as its own. The records: journal-records.ts.
 */
import { createHash, type Hash } from 'node:crypto';
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { UsageError } from '../../errors.js';
import type { ItemList, ItemSource, PreparedItems } from '../items/index.js';
import { counted, formatCount } from '../items/clean.js';
import { formatFromPath } from '../items/formats.js';
import { InputCopy, inputSize, JournalFile, writeArgumentsCopy } from '../../store/journal.js';
import { chunkDigest, JobJournal } from './job-journal.js';
import { chunkItems, rebuild, type Job, type JobInput, type JobState } from './journal-records.js';
import { runPipeline } from './pipeline.js';
import { itemSources, prepareItems, type ReadOptions } from './read.js';
import { postTimeoutMs } from './send.js';
import { parseUserSettlement, settleInDoubt, type UserSettlement } from './settle.js';
import type { SubmitOptions } from './types.js';

export interface ResumeOptions extends SubmitOptions {
  /** `--adopt CHUNK=ID`: chunk CHUNK (in flight) is task ID. */
  adopt?: string[];
  /** `--resend CHUNK`: chunk CHUNK (in flight) was not created; send it. */
  resend?: string[];
}

/** Margin past a request's deadline before its chunk is settled (the server's clock, the last bytes on the wire). */
const SETTLE_MARGIN_MS = 2_000;
/** The job's chunk size without --chunk-size: one chunk. */
const ONE_CHUNK = Number.MAX_SAFE_INTEGER;

type JobOptions = Omit<
  Job,
  'type' | 'version' | 'created_at' | 'inputs' | 'items' | 'items_sha256' | 'chunks' | 'retry_of'
>;
/** The options of a journaled create; `retryOf` when it is `retry --job SOURCE --journal FILE`. */
type CreateJobOptions = ReadOptions & SubmitOptions & { journal: string; retryOf?: Job['retry_of'] };

/** `create --journal FILE`: starts the job, or continues it when the journal has one with the same input and options. */
export async function runJournaledCreate(
  ctx: Context,
  service: string,
  args: string[],
  options: CreateJobOptions,
): Promise<void> {
  const path = resolve(options.journal);
  const file = JournalFile.open(path);
  try {
    let state = rebuild(file.records, path);
    if (state?.done) {
      throw new UsageError(
        `the job in ${options.journal} is finished`,
        `Use a new journal path for a new job (\`taskctl resume ${options.journal}\` prints its summary).`,
      );
    }
    // Nothing of a job without a send reached the service (refused at the confirmation, killed before its first
    // request): it is started again as given.
    if (state && !state.sent) {
      file.restart();
      state = undefined;
    }
    const api = await ctx.api();
    const wanted: JobOptions = {
      service,
      base_url: api.baseUrl,
      account: ctx.cache.account ?? '',
      chunk_size: options.chunkSize ?? ONE_CHUNK,
      format: options.format ?? null,
      column: options.column ?? null,
      validate: options.validate !== false,
      keep_duplicates: options.keepDuplicates === true,
      skip_invalid: options.skipInvalid === true,
    };
    const given = itemSources(ctx, args, options.file);
    if (state) {
      await continueGiven(ctx, file, state, { wanted, given, options });
      return;
    }
    const read = await startJob(ctx, file, wanted, given, options);
    try {
      const job = rebuild(file.records, path);
      if (!job) throw new Error('unreachable: the job record was just written');
      await continueJob(ctx, file, job, read, { options, verb: 'Create', name: options.journal, continued: false });
    } finally {
      read.dispose();
    }
  } finally {
    file.close();
  }
}

/** The same create run again: the same options and the same bytes (read again and compared), then continued. */
async function continueGiven(
  ctx: Context,
  file: JournalFile,
  state: JobState,
  given: { wanted: JobOptions; given: ItemSource[]; options: CreateJobOptions },
): Promise<void> {
  const { wanted, options } = given;
  const name = options.journal;
  const differs = (Object.keys(wanted) as Array<keyof JobOptions>).filter((key) => wanted[key] !== state.job[key]);
  if (differs.length > 0) throw mismatch(name, differs.map(describeOption));
  const read = await readWithDigests(ctx, state.job.service, given.given, options);
  try {
    const changed = compareInputs(state.job.inputs, given.given, read.digests);
    if (changed.length > 0) throw mismatch(name, changed);
    checkItems(state.job, read.prepared, name);
    await continueJob(ctx, file, state, read.prepared, { options, verb: 'Create', name, continued: true });
  } finally {
    read.prepared.dispose();
  }
}

/** A new job: stdin (and arguments) are copied beside the journal as they stream, so a resume can read them back. */
async function startJob(
  ctx: Context,
  file: JournalFile,
  wanted: JobOptions,
  given: readonly ItemSource[],
  options: CreateJobOptions,
): Promise<PreparedItems> {
  const { path } = file;
  const copies = new Map<number, InputCopy>();
  const sources = given.map((source, index): ItemSource => {
    if (source.kind === 'stdin') copies.set(index, new InputCopy(`${path}.input`));
    if (source.kind === 'args') return writeArgsCopy(`${path}.args`, source.values);
    return source;
  });
  const read = await readWithDigests(ctx, wanted.service, sources, options, copies);
  try {
    for (const copy of copies.values()) copy.finish();
    const inputs = sources.map((source, index): JobInput => {
      const digest = read.digests[index] ?? { size: 0, sha256: '' };
      const copy = copies.get(index);
      if (copy) return { kind: 'stdin', path: copy.path, format: options.format ?? 'lines', ...digest };
      if (source.kind !== 'file') throw new Error('unreachable: sources are files or stdin here');
      const kind = source.format === 'ndjson' && source.path === `${path}.args` ? 'args' : 'file';
      const format = source.format ?? options.format ?? formatFromPath(source.path);
      return { kind, path: resolve(source.path), format, ...digest };
    });
    const { prepared } = read;
    file.append({
      type: 'job',
      version: 1,
      created_at: new Date(ctx.clock.now()).toISOString(),
      ...wanted,
      inputs,
      items: prepared.count,
      items_sha256: prepared.digest,
      chunks: Math.ceil(prepared.count / wanted.chunk_size),
      ...(options.retryOf && { retry_of: options.retryOf }),
    } satisfies Job);
    return prepared;
  } catch (error) {
    read.prepared.dispose();
    throw error;
  }
}

/** `taskctl resume FILE`: continues the job from the journal's inputs, checked against their recorded size and digest. */
export async function runResume(ctx: Context, name: string, options: ResumeOptions): Promise<void> {
  const path = resolve(name);
  const file = JournalFile.open(path);
  try {
    const state = rebuild(file.records, path);
    if (!state)
      // The job record goes to disk before any chunk is sent: a create killed before it sent nothing.
      throw new UsageError(
        `${name} holds no job (a create stopped before recording one sent nothing)`,
        'Start it again with the same `taskctl create SERVICE -f FILE --chunk-size N --journal FILE`.',
      );
    const { job } = state;
    const api = await ctx.api();
    if (api.baseUrl !== job.base_url)
      throw mismatch(name, [`the base URL (${api.baseUrl}; the job used ${job.base_url})`]);
    if ((ctx.cache.account ?? '') !== job.account) throw mismatch(name, ['the account (API key)']);
    const run = { options, verb: 'Resume', name, continued: true };
    // A finished job's inputs are not read again: its summary (and --wait) need only the journal.
    if (state.done) {
      await continueJob(ctx, file, state, { count: job.items, chunks: () => [] }, run);
      return;
    }
    checkSizes(job, name);
    const read = await readWithDigests(ctx, job.service, jobSources(job), readOptionsOf(job));
    try {
      const changed = job.inputs
        .filter((input, i) => read.digests[i]?.sha256 !== input.sha256)
        .map((input) => `the content of ${input.path}`);
      if (changed.length > 0) throw mismatch(name, changed);
      checkItems(job, read.prepared, name);
      await continueJob(ctx, file, state, read.prepared, run);
    } finally {
      read.prepared.dispose();
    }
  } finally {
    file.close();
  }
}

function checkSizes(job: Job, name: string): void {
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
      throw mismatch(name, [
        `${input.path} (${formatCount(size)} bytes now, ${formatCount(input.size)} when the job started)`,
      ]);
    }
  }
}

function jobSources(job: Job): ItemSource[] {
  return job.inputs.map((input): ItemSource => ({ kind: 'file', path: input.path, format: input.format }));
}

function readOptionsOf(job: Job): ReadOptions {
  return {
    ...(job.format !== null && { format: job.format }),
    ...(job.column !== null && { column: job.column }),
    validate: job.validate,
    keepDuplicates: job.keep_duplicates,
    skipInvalid: job.skip_invalid,
  };
}

/**
 * The job through the pipeline, with the journal as its observer. Before any request: the chunks in doubt are
 * checked against their send records and --adopt/--resend against the job, and the first line says where it stands.
 */
async function continueJob(
  ctx: Context,
  file: JournalFile,
  state: JobState,
  items: ItemList,
  run: { options: ResumeOptions; verb: string; name: string; continued: boolean },
): Promise<void> {
  const { job } = state;
  const journal = new JobJournal(file, state, (await postTimeoutMs(ctx)) + SETTLE_MARGIN_MS, ctx.env);
  const doubt = state.done ? new Map<number, string[]>() : chunksInDoubt(journal, items, run.name);
  const user = parseUserSettlement(journal, run.options);
  if (run.continued) ctx.printer.info(standing(journal, user, run.name));
  await runPipeline(
    ctx,
    {
      batches: [{ service: job.service, items }],
      done: journal.done,
      observer: journal,
      job: { name: run.name, path: file.path },
      verb: run.verb,
      settle: (api, send) => settleInDoubt(ctx, api, send, { journal, items: doubt, user, name: run.name }),
    },
    { ...run.options, ...(job.chunk_size !== ONE_CHUNK && { chunkSize: job.chunk_size }) },
  );
}

/** The items of each chunk in doubt, read now; a chunk whose items are not those it was sent with is exit 2. */
function chunksInDoubt(journal: JobJournal, items: ItemList, name: string): Map<number, string[]> {
  const wanted = new Set(journal.inDoubt());
  const found = new Map<number, string[]>();
  if (wanted.size === 0) return found;
  let chunk = 0;
  for (const list of items.chunks(journal.state.job.chunk_size)) {
    chunk++;
    if (!wanted.has(chunk)) continue;
    const sha256 = journal.state.chunks.get(chunk)?.send?.sha256; // '' for a send a damaged line may have held
    if (sha256 !== '' && sha256 !== chunkDigest(list)) throw mismatch(name, [`the items of chunk ${chunk}`]);
    found.set(chunk, list);
    if (found.size === wanted.size) break;
  }
  return found;
}

/** `job j.jsonl: 40 of 100 chunks done, 1 in doubt (chunk 41); next: check the task list for chunk 41, then send 59 chunks`. */
function standing(journal: JobJournal, user: UserSettlement, name: string): string {
  const { job, done } = journal.state;
  const total = job.chunks;
  const doubt = journal.inDoubt();
  const head = `job ${name}: ${formatCount(journal.done.size)} of ${counted(total, 'chunk')} done`;
  if (done) return `${head}, finished`;
  const byUser = new Set([...user.adopt.map((a) => a.chunk), ...user.resend]);
  const scanned = doubt.filter((chunk) => !byUser.has(chunk));
  const left = total - journal.done.size;
  const steps = [
    ...(byUser.size > 0 ? [`settle chunk ${[...byUser].join(', ')} as given`] : []),
    ...(scanned.length > 0 ? [`check the task list for chunk ${scanned.join(', ')}`] : []),
    `send ${counted(left, 'chunk')} at most (${counted(remainingItems(journal), 'item')})`,
  ];
  const inDoubt = doubt.length === 0 ? 'none in doubt' : `${doubt.length} in doubt (chunk ${doubt.join(', ')})`;
  return `${head}, ${inDoubt}; next: ${steps.join(', then ')}`;
}

function remainingItems(journal: JobJournal): number {
  const { job } = journal.state;
  let items = 0;
  for (let chunk = 1; chunk <= job.chunks; chunk++) if (!journal.done.has(chunk)) items += chunkItems(job, chunk);
  return items;
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

/**
 * The records of a job's journal (JSON lines, store/journal.ts) and the job's state rebuilt from any prefix of them:
 *   job        the service, options, inputs by absolute path, size and digest, the cleaned items' digest
 *   send       chunk N's request is leaving (after every wait before it): its item range and digest, when, and the
 *              tasks that existed before; a chunk with no send has nothing to settle
 *   created    chunk N is task T (answered, recovered, or reused)
 *   unknown    the request's outcome could not be settled (exit 9): the job stops at chunk N
 *   reconciled a chunk in flight settled: task T adopted, or null (nothing was created: it is sent again)
 *   done       every chunk has its task
 * The format is described in docs/behaviour.md; journals written by earlier versions read the same.
 */
import * as z from '../../lib/zod.js';
import { UsageError } from '../../errors.js';
import type { How } from './types.js';

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
export type JobInput = z.infer<typeof InputSchema>;

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
  /** The chunk's items as a multiset (core/items/multiset.ts): checked against its task's items by the --job commands. */
  items_digest: z.string().optional(),
  sent_at: z.number(),
  /** Epoch ms after which the request can no longer land (its deadline): a chunk in flight is settled after it. */
  settle_after: z.number(),
  before: z.array(z.number()),
  before_complete: z.boolean(),
});
export type SendRecord = z.infer<typeof SendSchema>;

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
    /** scan: the exactly-once rules; answer: the server refused the request (or it never left); user. */
    by: z.enum(['scan', 'answer', 'user']),
  }),
  z.object({ type: z.literal('done'), tasks: z.number(), items: z.number(), cost: z.number() }),
]);
type JournalRecord = z.infer<typeof RecordSchema>;

/** What the journal says about one chunk. */
interface ChunkState {
  send?: SendRecord;
  task?: { id: number; cost: number; how: How };
}

export interface JobState {
  job: Job;
  chunks: Map<number, ChunkState>;
  done: boolean;
  /** A send was ever recorded: something of the job may have reached the service. */
  sent: boolean;
}

const HOWS: ReadonlySet<string> = new Set<How>(['created', 'recovered', 'reused']);

function parseRecords(records: readonly unknown[], path: string): JournalRecord[] {
  return records.map((raw, index) => {
    const result = RecordSchema.safeParse(raw);
    if (!result.success) {
      throw new UsageError(
        `the journal ${path} has an unknown record at line ${index + 1} (${result.error.issues[0]?.message ?? 'invalid'})`,
        'Is it a taskctl journal, written by this version?',
      );
    }
    return result.data;
  });
}

/** The job's state from the records read (undefined for an empty journal). */
export function rebuild(records: readonly unknown[], path: string): JobState | undefined {
  if (records.length === 0) return undefined;
  const [first, ...rest] = parseRecords(records, path);
  if (first?.type !== 'job') throw new UsageError(`the journal ${path} does not start with its job record`);
  const state: JobState = { job: first, chunks: new Map(), done: false, sent: false };
  for (const record of rest) {
    if (record.type === 'job') throw new UsageError(`the journal ${path} holds two jobs`);
    if (record.type === 'done') {
      state.done = true;
      continue;
    }
    const chunk = state.chunks.get(record.chunk) ?? {};
    state.chunks.set(record.chunk, chunk);
    if (record.type === 'send') {
      chunk.send = record;
      state.sent = true;
    } else if (record.type === 'created') {
      const how = HOWS.has(record.how) ? (record.how as How) : 'created';
      chunk.task = { id: record.task, cost: record.cost, how };
    } else if (record.type === 'reconciled' && record.task !== null) {
      chunk.task = { id: record.task, cost: record.cost, how: record.by === 'scan' ? 'recovered' : 'created' };
    } else if (record.type === 'reconciled') state.chunks.set(record.chunk, {}); // nothing created: to be sent
  }
  return state;
}

/** Items in chunk `chunk` (from 1) of the job. */
export function chunkItems(job: Job, chunk: number): number {
  return Math.max(0, Math.min(job.chunk_size, job.items - (chunk - 1) * job.chunk_size));
}

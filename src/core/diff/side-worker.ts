/**
 * The second side of a large diff read by a worker thread while the main thread reads the first, as the shell's
 * pipeline runs `jq` and `sort` at once (docs/performance.md#diff-against-the-shell). Only a regular file of at least
 * WORKER_MIN_BYTES, only while a core is free (workerBundle), and only from the bundle: the worker loads
 * dist/taskctl.cjs (about 0.1 s of CPU), which a small side would not repay; run from source (the tests' in-process
 * runs), the two sides are read in turn.
 *
 * The worker opens the file again, reads and sorts it with the same code (side-items.ts, sort.ts), and sends each
 * sorted run back in chunks that the main thread writes to run files of its own: every file is the main thread's to
 * remove, on Ctrl-C and errors too. At most IN_FLIGHT_BYTES of chunks wait to be written: past that the worker waits.
 * Its errors come back as the same errors, and the first side's error still wins (index.ts reads it first).
 */
import { availableParallelism, loadavg } from 'node:os';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { CliError, InputError, InterruptedError, UsageError } from '../../errors.js';
import type { RunFiles } from '../../store/sorted-runs.js';
import { readFile, SideItems } from './side-items.js';
import { RUN_LIMITS, SortedSide, type RunStore, type SortedParts } from './sort.js';
import { openFileSide, type OpenedFile } from './source.js';
import type { CompareMode } from './values.js';

/** A side smaller than this is read by the main thread: starting a worker costs about what reading 4 MiB does. */
export const WORKER_MIN_BYTES = 4 * 1024 * 1024;
/** Bytes of sorted runs sent by the worker and not yet written by the main thread, at most (then it waits). */
const IN_FLIGHT_BYTES = 32 * 1024 * 1024;

interface SideJob {
  path: string;
  name: string;
  mode: CompareMode;
  /** The main thread's (tests lower them). */
  runLimits: typeof RUN_LIMITS;
  /** One Int32: bytes in flight. */
  inFlight: SharedArrayBuffer;
}

interface SentError {
  name: string;
  message: string;
  exitCode?: number | undefined;
  hint?: string | undefined;
  code?: string | undefined;
  syscall?: string | undefined;
}

type FromWorker =
  | { kind: 'chunk'; run: number; bytes: Uint8Array }
  | { kind: 'close'; run: number }
  | { kind: 'done'; fields: string[]; services: string[]; parts: SortedParts }
  | { kind: 'error'; error: SentError };

/** A run's buffer, written: back to the worker for its next run. */
interface ToWorker {
  free: ArrayBuffer;
}

/** A side being read by a worker: `done` once it is read and sorted; `stop` ends the worker (always called). */
export interface WorkerSide {
  done: Promise<SideItems>;
  stop: () => Promise<void>;
}

/**
 * The CLI bundle a worker loads: the one this code runs from, while a core is free; undefined run from source.
 * A worker pays only on a core nobody else wants: it costs CPU of its own (its start, its code compiled a second
 * time), and on a busy machine the scheduler shares the cores among sessions, not threads, so it would not run sooner.
 */
function workerBundle(): string | undefined {
  const bundle = typeof __filename === 'string' && __filename.endsWith('.cjs') ? __filename : undefined;
  return (loadavg()[0] ?? 0) < availableParallelism() ? bundle : undefined;
}

/** Starts a worker (loading `bundle`) reading `file` when it is worth one (see the module comment); else undefined. */
export function readInWorker(
  file: OpenedFile,
  mode: CompareMode,
  files: RunFiles,
  bundle = workerBundle(),
): WorkerSide | undefined {
  if (bundle === undefined || file.path === undefined || file.kind === 'journal') return undefined;
  if ((file.regularSize ?? 0) < WORKER_MIN_BYTES) return undefined;
  const { path, name } = file;
  const job: SideJob = { path, name, mode, runLimits: { ...RUN_LIMITS }, inFlight: new SharedArrayBuffer(4) };
  const inFlight = new Int32Array(job.inFlight);
  const worker = new Worker(`require(${JSON.stringify(bundle)}).serveDiffSide()`, { eval: true, workerData: job });
  const side = new SideItems(file.name, new SortedSide(files), mode);
  const writers = new Map<number, ReturnType<RunFiles['writer']>>();
  const runs: string[] = [];
  let settled = false;
  const done = new Promise<SideItems>((resolve, reject) => {
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    const writer = (run: number) => {
      let found = writers.get(run);
      if (found === undefined) writers.set(run, (found = files.writer()));
      return found;
    };
    worker.on('message', (message: FromWorker) => {
      if (settled) return;
      try {
        if (message.kind === 'chunk') {
          writer(message.run).write(message.bytes);
          Atomics.sub(inFlight, 0, message.bytes.length);
          Atomics.notify(inFlight, 0);
          const free = message.bytes.buffer as ArrayBuffer;
          worker.postMessage({ free } satisfies ToWorker, [free]);
        } else if (message.kind === 'close') {
          runs.push(writer(message.run).close());
          writers.delete(message.run);
        } else if (message.kind === 'done') {
          for (const field of message.fields) side.fields.add(field);
          for (const service of message.services) side.services.add(service);
          side.sorted.adopt(revivedParts(message.parts), runs);
          settled = true;
          resolve(side);
          void worker.terminate(); // its heap is not held through the comparison
        } else fail(revivedError(message.error));
      } catch (error) {
        fail(error); // a run file that cannot be written (a full disk): the error the main thread would have had
      }
    });
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error(`the worker reading ${file.name} stopped before the end`)));
  });
  done.catch(() => undefined); // awaited after the first side; a failure meanwhile is not unhandled
  return {
    done,
    stop: async () => {
      settled = true;
      worker.removeAllListeners('message');
      await worker.terminate();
    },
  };
}

/** `done` of a worker side, or exit 130 as soon as `signal` aborts (Ctrl-C while the second side is still read). */
export function untilRead(side: WorkerSide, signal: AbortSignal): Promise<SideItems> {
  const interrupted = () => new InterruptedError('interrupted', 'Nothing was compared; run the same diff again.');
  if (signal.aborted) return Promise.reject(interrupted());
  return new Promise<SideItems>((resolve, reject) => {
    const onAbort = () => reject(interrupted());
    signal.addEventListener('abort', onAbort, { once: true });
    side.done.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The worker's part (the bundle's `serveDiffSide`): reads the side of workerData, and posts it as FromWorker. */
export async function serveSide(): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('serveSide runs in a worker');
  const job = workerData as SideJob;
  const inFlight = new Int32Array(job.inFlight);
  let runs = 0;
  const store: RunStore = {
    writer: () => {
      const run = ++runs;
      return {
        write: (bytes) => {
          for (let now = Atomics.load(inFlight, 0); now > IN_FLIGHT_BYTES; now = Atomics.load(inFlight, 0))
            Atomics.wait(inFlight, 0, now, 1000);
          // A run's buffer came from runBuffer: sent without a copy, and sent back once written.
          Atomics.add(inFlight, 0, bytes.length);
          port.postMessage({ kind: 'chunk', run, bytes } satisfies FromWorker, [bytes.buffer as ArrayBuffer]);
        },
        close: () => {
          port.postMessage({ kind: 'close', run } satisfies FromWorker);
          return `run-${run}`;
        },
      };
    },
    read: () => {
      throw new Error('a worker hands its runs over, it does not read them');
    },
    runBuffer: (size) => {
      const free = spare.pop();
      if (free !== undefined && free.byteLength >= size) return Buffer.from(free);
      return Buffer.allocUnsafeSlow(Math.max(size, job.runLimits.bytes));
    },
  };
  // Buffers the main thread has written come back: reused rather than new memory for every run.
  const spare: ArrayBuffer[] = [];
  const takeBack = (message: ToWorker) => spare.push(message.free);
  port.on('message', takeBack);
  try {
    const file = await openFileSide({ kind: 'file', path: job.path, name: job.name });
    try {
      const { items, bytes } = job.runLimits;
      const side = new SideItems(job.name, new SortedSide(store, items, bytes), job.mode);
      await readFile(file, side, new AbortController().signal);
      const parts = side.sorted.handOver();
      const kept = parts.kept;
      // Each from its own ArrayBuffer (allocUnsafeSlow and typed arrays of their own, never a pool's).
      const transfer =
        kept === undefined ? [] : [kept.buffer, kept.starts, kept.order].map((a) => a.buffer as ArrayBuffer);
      const message: FromWorker = { kind: 'done', fields: [...side.fields], services: [...side.services], parts };
      port.postMessage(message, transfer);
      port.off('message', takeBack);
    } finally {
      await file.close();
    }
  } catch (error) {
    port.postMessage({ kind: 'error', error: sentError(error) } satisfies FromWorker);
  }
}

function sentError(error: unknown): SentError {
  if (error instanceof CliError)
    return { name: error.name, message: error.message, exitCode: error.exitCode, hint: error.hint };
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const { code, syscall } = error as NodeJS.ErrnoException;
  return { name: error.name, message: error.message, code, syscall };
}

function revivedError(sent: SentError): Error {
  if (sent.exitCode !== undefined) {
    if (sent.name === 'InputError') return new InputError(sent.message, sent.hint);
    if (sent.name === 'UsageError') return new UsageError(sent.message, sent.hint);
    return new CliError(sent.message, sent.exitCode, sent.hint);
  }
  const error: NodeJS.ErrnoException = new Error(sent.message);
  if (sent.code !== undefined) error.code = sent.code;
  if (sent.syscall !== undefined) error.syscall = sent.syscall;
  return error;
}

/** A Buffer comes through a message as a plain Uint8Array: made a Buffer again over the same memory. */
function revivedParts(parts: SortedParts): SortedParts {
  const kept = parts.kept;
  if (kept === undefined) return parts;
  const bytes = kept.buffer as Uint8Array;
  return { ...parts, kept: { ...kept, buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) } };
}

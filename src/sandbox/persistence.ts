/** The `--state FILE`: JSON, written atomically (temp file + rename), debounced after mutations, flushed on close. */
import { readFile, rename, writeFile, unlink } from 'node:fs/promises';
import * as z from 'zod';
import type { AccountSnapshot } from './state.js';

const STATE_VERSION = 1;
const SAVE_DEBOUNCE_MS = 100;

const StateFileSchema = z.object({
  version: z.literal(STATE_VERSION),
  balance: z.number().int(),
  apiKey: z.string().min(1),
  keyRotations: z.number().int().nonnegative(),
  nextId: z.number().int().positive(),
  webhookUrl: z.string().nullable(),
  tasks: z.array(
    z.object({
      id: z.number().int().nonnegative(),
      service: z.string(),
      items: z.array(z.string()),
      cost: z.number().nonnegative(),
      createdAt: z.number(),
      startAt: z.number(),
      itemMs: z.number().nonnegative(),
    }),
  ),
});

/** The saved account, or undefined when the file does not exist yet; a corrupt file is an error, never silently reset. */
export async function loadStateFile(file: string): Promise<AccountSnapshot | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`state file ${file} is not valid JSON; move it away to start fresh`);
  }
  const parsed = StateFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(
      `state file ${file} is not a taskctl sandbox state (${parsed.error.issues[0]?.message ?? 'invalid'})`,
    );
  }
  const { version: _version, ...snapshot } = parsed.data;
  return snapshot;
}

export class StateSaver {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private tmpCounter = 0;

  constructor(
    private readonly file: string,
    private readonly snapshot: () => AccountSnapshot,
    private readonly log: (line: string) => void,
  ) {}

  /** Coalesces bursts of mutations into one write. */
  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.save();
    }, SAVE_DEBOUNCE_MS);
    this.timer.unref();
  }

  /** Writes now (after any write in progress), cancelling a pending debounced one. */
  save(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const text = `${JSON.stringify({ version: STATE_VERSION, ...this.snapshot() })}\n`;
    // Writes are chained so two renames never race and the last state wins.
    this.writing = this.writing.then(() => this.writeAtomically(text));
    return this.writing;
  }

  private async writeAtomically(text: string): Promise<void> {
    const tmp = `${this.file}.${process.pid}.${++this.tmpCounter}.tmp`;
    try {
      await writeFile(tmp, text, { mode: 0o600 });
      await rename(tmp, this.file);
    } catch (error) {
      this.log(`sandbox: could not save state to ${this.file}: ${(error as Error).message}`);
      await unlink(tmp).catch(() => {});
    }
  }
}

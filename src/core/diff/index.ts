/**
 * `taskctl diff A B`: what changed, item by item, between two runs. Each side (a task, a journal's tasks, a results
 * file) is read into a sorted side, its lines spilled by partition past a bound in bytes (sort.ts), then
 * the two are walked together (compare.ts) and every change printed as it is found (print.ts). Exit 0 when the
 * sides are the same, 15 when they differ; the run files are removed on every path out, Ctrl-C and errors included.
 */
import { resolve } from 'node:path';
import { ExitCode, InterruptedError, UsageError } from '../../errors.js';
import { formatCount } from '../../output/numbers.js';
import { counted } from '../../output/plural.js';
import type { Printer } from '../../output/printer.js';
import { fitToStream } from '../../output/width.js';
import { RunFiles } from '../../store/sorted-runs.js';
import { ownDescriptor } from '../../store/items-file.js';
import type { Capabilities } from '../capabilities.js';
import { DiffTally, walkSides, type Change } from './compare.js';
import { readJournal } from './journal-side.js';
import { ChangeOutput } from './print.js';
import { addTask, readFile, SideItems, unfinishedNote } from './side-items.js';
import { SortedSide } from './sort.js';
import { openFileSide, parseSide, type OpenedFile, type SideSpec } from './source.js';
import { NOT_RESULT_FIELDS, type CompareMode } from './values.js';
import { journalOf, namesJobId } from '../job/registry.js';
import { shellWord } from '../../lib/shell-word.js';
import { idsOnly } from '../quiet.js';

export interface DiffOptions {
  /** Only these fields are compared (`--fields a,b`). Default: status and every result field, not the error. */
  fields?: string[];
}

export async function runDiff(ctx: Capabilities, first: string, second: string, options: DiffOptions): Promise<void> {
  // A job id (`j-…`) is its journal; a path that exists wins over an id. A file is read by its absolute path, which a
  // hint about a journal names (`taskctl resume FILE`), so the hint runs from any directory.
  const side = (arg: string): SideSpec => {
    const spec = parseSide(arg);
    if (spec.kind !== 'file') return spec;
    return { ...spec, path: resolve(namesJobId(arg) ? journalOf(ctx.env, arg) : arg) };
  };
  const specs = [side(first), side(second)] as const;
  // One stream named twice (`- /dev/stdin`, `/dev/fd/3 /proc/self/fd/3`) would give each side part of its lines.
  const stream = (spec: SideSpec) =>
    spec.kind === 'stdin' ? 0 : spec.kind === 'file' ? ownDescriptor(spec.path) : undefined;
  const [one, other] = specs.map(stream);
  if (ctx.globals.apiKeyFile === '-' && (one === 0 || other === 0))
    throw new UsageError(
      'stdin cannot carry both the API key (--api-key-file -) and a side of the diff',
      'Give that side as a file, or the key from a file.',
    );
  if (one !== undefined && one === other) {
    if (one === 0)
      throw new UsageError('stdin (-) can be only one side of a diff', 'Give the other side as a file or a task id.');
    throw new UsageError(`${first} and ${second} are one stream`, 'Give each side its own file or task id.');
  }
  const files = new RunFiles();
  const opened: Array<OpenedFile | undefined> = [];
  try {
    for (const spec of specs)
      opened.push(spec.kind === 'task' ? undefined : await openFileSide(spec, ctx.io.stdin, ctx.signal));
    const mode: CompareMode = opened.some((file) => file?.kind === 'csv') ? 'csv' : 'json';
    const sides: SideItems[] = [];
    for (const [index, spec] of specs.entries()) {
      const side = new SideItems(spec.name, new SortedSide(files), mode);
      const again = (id: string) =>
        `taskctl diff ${index === 0 ? id : shellWord(first)} ${index === 1 ? id : shellWord(second)}`;
      await fill(ctx, spec, opened[index], side, again);
      side.sorted.finish(); // its buffers are freed before the next side fills its own
      sides.push(side);
    }
    const [a, b] = sides as [SideItems, SideItems];
    checkServices(a, b);
    const fields = chooseFields(a, b, options.fields, ctx.printer);
    await compare(ctx, a, b, fields, mode);
  } finally {
    for (const file of opened) await file?.close();
    files.dispose();
  }
}

async function fill(
  ctx: Capabilities,
  spec: SideSpec,
  file: OpenedFile | undefined,
  side: SideItems,
  again: (id: string) => string,
): Promise<void> {
  if (spec.kind === 'task') {
    const api = await ctx.api();
    const task = await ctx.spin(`reading task ${spec.id}`, () => api.getTask(spec.id));
    ctx.cache.rememberTasks([task]);
    addTask(side, task);
    const note = unfinishedNote(side, `taskctl wait ${task.id}`);
    if (note !== undefined) ctx.printer.warn(note);
    return;
  }
  if (file === undefined) throw new Error('a file side was not opened');
  if (file.kind === 'journal') await readJournal(ctx, file, side, again);
  else await ctx.spin(`reading ${file.name}`, () => readFile(file, side, ctx.signal));
}

/** Two runs of different services have nothing to compare: exit 2. */
function checkServices(a: SideItems, b: SideItems): void {
  const [serviceA] = a.services;
  const [serviceB] = b.services;
  if (serviceA === undefined || serviceB === undefined || a.services.has(serviceB)) return;
  throw new UsageError(
    `the two sides are of different services: ${serviceA} (${a.name}) and ${serviceB} (${b.name})`,
    'diff compares two runs of one service.',
  );
}

/**
 * The fields compared: `--fields` (each must exist on a side), else status and every result field. A field only one
 * side has is skipped with a warning (it would differ on every item), unless nothing the user expects would be
 * compared: exit 2 when the two sides have results but none in common, or a named field is missing from a side that
 * has results of its own (or from both, while either has results). Called once both sides are read, before anything
 * is printed.
 */
export function chooseFields(
  a: SideItems,
  b: SideItems,
  named: readonly string[] | undefined,
  printer: Printer,
): string[] {
  const all = [...new Set([...a.fields, ...b.fields])].filter((field) => field !== 'target' && field !== 'task');
  const wanted = named?.length ? [...new Set(named)] : all.filter((field) => !NOT_RESULT_FIELDS.has(field));
  // Neither side has results (every item failed, both runs): a result field is on neither side, and that is no typo.
  const noResults = resultFields(a).length === 0 && resultFields(b).length === 0 && all.length > 0;
  for (const field of wanted) {
    if (all.includes(field)) continue;
    if (!noResults)
      throw new UsageError(
        `no field "${field}" on either side`,
        all.length > 0 ? `Fields: ${all.join(', ')}.` : 'Neither side has items.',
      );
    printer.warn(`no field "${field}" on either side (neither has results): not compared`);
  }
  if (!named?.length) refuseNoCommonResult(a, b);
  const empty = a.sorted.count === 0 || b.sorted.count === 0;
  return wanted.filter((field) => {
    if (!all.includes(field)) return false;
    if (a.fields.has(field) && b.fields.has(field)) return true;
    const [has, lacks] = a.fields.has(field) ? [a, b] : [b, a];
    const others = resultFields(lacks);
    // Named, and the side without it has results of its own: renamed, or another service's (no results: it failed).
    if (named?.length && !empty && others.length > 0)
      throw new UsageError(
        `"${field}" is only in ${has.name}: ${lacks.name} has ${fieldList(others)}`,
        'Name fields both sides have, or pass --fields status to compare only the statuses.',
      );
    if (!empty) printer.warn(`"${field}" is only in ${has.name}: not compared`);
    return false;
  });
}

/** The result fields of a side: what it has beyond status and the fields that name an item or its error. */
function resultFields(side: SideItems): string[] {
  return [...side.fields].filter((field) => field !== 'status' && !NOT_RESULT_FIELDS.has(field));
}

/** Field names for one line: the first few, then how many more. */
function fieldList(fields: readonly string[]): string {
  const shown = fields.slice(0, 5).join(', ');
  return fields.length > 5 ? `${shown} and ${formatCount(fields.length - 5)} more` : shown;
}

/**
 * Both sides have result fields and share none (another service's export, a result field renamed between two runs):
 * only the statuses would be compared, and "the same" would be a lie. A side with no result field at all (its items
 * failed, or it has none) is still compared: its statuses are the change. Checked once both sides are read (their
 * fields are known only then) and before anything is printed.
 */
function refuseNoCommonResult(a: SideItems, b: SideItems): void {
  const [ofA, ofB] = [resultFields(a), resultFields(b)];
  if (ofA.length === 0 || ofB.length === 0 || ofA.some((field) => b.fields.has(field))) return;
  throw new UsageError(
    `no result field in common: ${a.name} has ${fieldList(ofA)}, ${b.name} has ${fieldList(ofB)}`,
    'Pass --fields status to compare only the statuses, or --fields naming the fields to compare.',
  );
}

async function compare(
  ctx: Capabilities,
  a: SideItems,
  b: SideItems,
  fields: string[],
  mode: CompareMode,
): Promise<void> {
  const tally = new DiffTally();
  const pause = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    if (ctx.signal.aborted) throw new InterruptedError('interrupted', 'Nothing more was compared.');
  };
  const walk = async (printer: Printer) => {
    const output = new ChangeOutput(printer, mode, (text) => fitToStream(text, ctx.io.stdout), idsOnly(ctx.globals));
    // The first change settles the outcome before it is written: a reader that goes away after it (`| head -1`) ends
    // the run with 15, never 0, which would say the two sides are the same.
    const emit = (change: Change) => {
      if (ctx.exitCode !== ExitCode.differ) ctx.exitCode = ExitCode.differ;
      output.write(change);
    };
    try {
      await walkSides(a.sorted.sorted(), b.sorted.sorted(), { fields, tally, emit, pause });
    } catch (error) {
      await output.abort();
      throw error;
    }
    await output.end(tally);
  };
  if (ctx.printer.format === 'table' && !idsOnly(ctx.globals)) await ctx.paged(walk);
  else await walk(ctx.printer);
  // For people a word that the run finished; scripts get nothing (the exit code answers).
  if (tally.changed === 0 && ctx.printer.format === 'table')
    ctx.printer.info(`no changes: the same ${counted(tally.items, 'item')} on both sides`);
}

/**
 * The bytes path of an ndjson side (fast-line.ts, side-items.ts) against the exact path (every line parsed as text):
 * generated exports with escapes, unicode (NFC and NFD targets, astral and private-use characters), big integers,
 * repeated targets and keys, nesting, exotic numbers and tasks, blank lines, CRs and broken lines, cut into chunks
 * anywhere, must give the same changes in the same order, the same counts and field names, or the same error.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { DiffTally, walkSides, type Change } from '../../../../src/core/diff/compare.js';
import { LineKind, scanLine, ScannedLine } from '../../../../src/core/diff/fast-line.js';
import { readFile, SideItems } from '../../../../src/core/diff/side-items.js';
import { SortedSide } from '../../../../src/core/diff/sort.js';
import type { OpenedFile } from '../../../../src/core/diff/source.js';
import { RunFiles } from '../../../../src/store/sorted-runs.js';

const INVALID = Buffer.from([0xff]);
const dir = mkdtempSync(join(tmpdir(), 'taskctl-diff-fast-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TARGETS = [
  'a.com',
  'b.com',
  'c.com',
  'caf\u00e9.fr', // NFC
  'cafe\u0301.fr', // NFD: the same item once normalised
  '\u{1F600}.io', // astral: a surrogate pair in UTF-16
  '\uE000.io', // private use: sorts after surrogates in UTF-16, before them as UTF-8 bytes
  'q"uote.com',
  'back\\slash.com',
  'tab\there.com',
];
const KEYS = ['status', 'available', 'error', 'score', 'note', '0', '10', '__proto__', 'é', 'task', 'target'];

/** A JSON string written plainly or with an escape (`\u` for one character, or `\/`). */
const jsonString = (value: string) =>
  fc.constantFrom(
    JSON.stringify(value),
    value.length > 0
      ? `"\\u${value.charCodeAt(0).toString(16).padStart(4, '0')}${JSON.stringify(value).slice(2)}`
      : '""',
    JSON.stringify(value).replace('.', '\\/'),
  );

const rawValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('true', 'false', 'null', '0', '-0', '1', '1.0', '1e3', '-12.5e-2', '42'),
  fc.constantFrom('9007199254740993', '12345678901234567890', '-9007199254740993', '1234567890123456.5'),
  fc.constantFrom('completed', 'failed', 'ok', 'é', '\u{1F600}', '').chain(jsonString),
  fc.constantFrom('{"a":1}', '[1,2]', '{"b":[true,{"c":null}]}', '[]', '{}'),
);

const taskValue = fc.constantFrom(
  '1',
  '7',
  '0',
  '-3',
  '"12"',
  '1.0',
  '1e2',
  '123456789012345',
  '1234567890123456',
  'null',
  'true',
  '"x"',
  '-0',
);

const member = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...KEYS.slice(0, 5)), rawValue) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...KEYS.slice(5, 9)), rawValue) },
  { weight: 1, arbitrary: fc.tuple(fc.constant('task'), taskValue) },
  { weight: 1, arbitrary: fc.tuple(fc.constant('target'), fc.constantFrom(...TARGETS).chain(jsonString)) },
);

/** One line: mostly `{"task":…,"target":…,…}` as `show -o ndjson` writes it, sometimes spaced, broken or blank. */
const line: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .record({
        task: fc.option(taskValue, { nil: undefined }),
        target: fc.constantFrom(...TARGETS).chain(jsonString),
        members: fc.array(member, { maxLength: 5 }),
        space: fc.constantFrom('', '', '', ' ', '\t'),
      })
      .map(({ task, target, members, space }) => {
        const all: Array<[string, string]> = [
          ...(task === undefined ? [] : [['task', task] as [string, string]]),
          ['target', target],
          ...members,
        ];
        return `${space}{${all.map(([key, value]) => `${JSON.stringify(key)}:${space}${value}`).join(`,${space}`)}}${space}`;
      }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '   ',
      '\u00a0',
      '{"status":"completed"}',
      '{"target":"a.com",}',
      '[1]',
      '{"target":1}',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"target":"a.com","status":"x"}\r',
      '{"items":[{"target":"b.com","status":"y"}],"id":3}',
      '{"target":"a.com","status":"\u0000"}', // a NUL byte: not a results file
      '{"target":"b.com","status":"\u00ff~BAD~"}', // ~BAD~: a byte that is not UTF-8
    ),
  },
);

const exportText = fc.array(line, { maxLength: 40 }).map((lines) => lines.map((text) => `${text}\n`).join(''));

function opened(name: string, bytes: Buffer, cuts: number[]): OpenedFile {
  async function* chunks(): AsyncGenerator<Buffer> {
    let from = 0;
    for (const cut of [...cuts.map((c) => Math.floor(c * bytes.length)).sort((x, y) => x - y), bytes.length]) {
      if (cut > from) yield bytes.subarray(from, cut);
      from = Math.max(from, cut);
    }
  }
  return { name, path: undefined, kind: 'ndjson', chunks: chunks(), close: () => Promise.resolve() };
}

type Outcome = { error: string } | { changes: Change[]; tally: DiffTally; fields: string[][]; counts: number[] };

async function run(
  sides: Array<{ bytes: Buffer; cuts: number[] }>,
  exact: boolean,
  runItems: number,
): Promise<Outcome> {
  const files = new RunFiles(dir);
  try {
    const read: SideItems[] = [];
    for (const [index, side] of sides.entries()) {
      const items = new SideItems(`side${index}`, new SortedSide(files, runItems), 'json');
      await readFile(opened(`side${index}`, side.bytes, side.cuts), items, new AbortController().signal, exact);
      read.push(items);
    }
    const [a, b] = read as [SideItems, SideItems];
    const fields = [...new Set([...a.fields, ...b.fields])].filter((field) => field !== 'error');
    const changes: Change[] = [];
    const tally = new DiffTally();
    await walkSides(a.sorted.sorted(), b.sorted.sorted(), {
      fields,
      tally,
      emit: (change) => changes.push(change),
      pause: () => Promise.resolve(),
    });
    return { changes, tally, fields: [[...a.fields], [...b.fields]], counts: [a.sorted.count, b.sorted.count] };
  } catch (error) {
    return { error: (error as Error).message };
  } finally {
    files.dispose();
  }
}

const side = fc.record({
  text: exportText,
  cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }),
  bom: fc.boolean(),
});

describe('an ndjson side read from its bytes', () => {
  it('gives what the exact path gives: the same changes in the same order, counts, field names or error', async () => {
    await fc.assert(
      fc.asyncProperty(side, side, fc.integer({ min: 2, max: 16 }), async (first, second, runItems) => {
        const sides = [first, second].map(({ text, cuts, bom }) => ({
          bytes: Buffer.concat(
            `${bom ? '\ufeff' : ''}${text}`
              .split('~BAD~')
              .flatMap((part, i) => [...(i > 0 ? [INVALID] : []), Buffer.from(part)]),
          ),
          cuts,
        }));
        const exact = await run(sides, true, runItems);
        const fast = await run(sides, false, 1_000);
        expect(fast).toEqual(exact);
      }),
      // 60 pairs of up to 40 lines each (every run spills the exact side's sorted runs to disk): a new seed every suite
      // run, so the pairs add up; 150 a run cost ~2 s of CPU.
      { numRuns: 60 },
    );
  });

  it('scans the lines `show -o ndjson` writes, and leaves the unusual to the exact parser', () => {
    const kind = (text: string) => {
      const bytes = Buffer.from(text);
      return scanLine(bytes, 0, bytes.length, new ScannedLine());
    };
    expect(kind('{"task":3,"target":"a.com","status":"completed","available":true,"error":null}')).toBe(LineKind.Item);
    expect(kind('  \t ')).toBe(LineKind.Blank);
    for (const unusual of [
      '{"target":"a\\"b"}', // an escape
      '{"target":"café"}', // not ASCII: normalised by the exact path
      '{"target":"a","x":{"y":1}}', // nesting
      '{"target":"a","task":1.0}', // a task the exact path reads as 1
      '{"target":"a","10":true}', // a key JavaScript orders first
      '{"target":"a","target":"b"}', // a repeated target
      '{"target":"a",}', // not JSON
      '{"target":"a"} x',
    ])
      expect(kind(unusual), unusual).toBe(LineKind.Exact);
  });
});

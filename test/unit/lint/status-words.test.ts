/**
 * One status vocabulary (lib/task-state.ts): no other file of src/ compares a status to a word of it. The sandbox's own
 * state machine is exempt (it plays the server); its dashboard is not (its copy is generated from the vocabulary).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAGE_JS } from '../../../src/sandbox/dashboard/script.js';
import { statusToneTable } from '../../../src/lib/task-state.js';

const root = new URL('../../..', import.meta.url).pathname;
const WORDS = Object.keys(statusToneTable());
const word = `['"\`](?:${WORDS.join('|')})['"\`]`;
/** `x.status === 'failed'`, `'running' !== status`, `status.toLowerCase() === 'completed'`. */
const COMPARED = [
  new RegExp(`status[\\w.()?]*\\s*[!=]==?\\s*${word}`, 'i'),
  new RegExp(`${word}\\s*[!=]==?\\s*[\\w.?]*status`, 'i'),
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const exempt = (file: string) =>
  file === 'src/lib/task-state.ts' || (file.startsWith('src/sandbox/') && !file.startsWith('src/sandbox/dashboard/'));

/** Lines comparing a status to a vocabulary word, and `case 'word':` lines of a `switch` over a status. */
function comparisons(text: string): string[] {
  const found: string[] = [];
  let switchOverStatus = false;
  for (const line of text.split('\n')) {
    if (/\bswitch\s*\(/.test(line)) switchOverStatus = /status/i.test(line);
    if (COMPARED.some((pattern) => pattern.test(line))) found.push(line.trim());
    else if (switchOverStatus && new RegExp(`\\bcase\\s+${word}\\s*:`).test(line)) found.push(line.trim());
  }
  return found;
}

describe('status words are compared only in lib/task-state.ts', () => {
  it('finds a comparison where one is written (the check itself works)', () => {
    expect(comparisons("if (task.status === 'processing') x();")).toHaveLength(1);
    expect(comparisons("return 'cancelled' !== t.status;")).toHaveLength(1);
    expect(comparisons("switch (task.status.toLowerCase()) {\n  case 'running':\n    break;\n}")).toHaveLength(1);
    expect(comparisons("const phase = taskPhase(task) === 'completed';")).toHaveLength(0);
  });

  it('src/ has none outside the vocabulary and the sandbox server', () => {
    const offenders = sourceFiles(join(root, 'src'))
      .map((path) => relative(root, path))
      .filter((file) => !exempt(file))
      .flatMap((file) => comparisons(readFileSync(join(root, file), 'utf8')).map((line) => `${file}: ${line}`));
    expect(offenders).toEqual([]);
  });

  it("the dashboard's script carries the vocabulary generated from task-state.ts, every word with its tone", () => {
    const copy = /var STATUS_TONES = (\{[^\n]*\});/.exec(PAGE_JS)?.[1];
    expect(copy && (JSON.parse(copy) as unknown)).toEqual(statusToneTable());
    expect(comparisons(PAGE_JS)).toEqual([]);
  });
});

/**
 * The money path takes what it uses: no function of core/submit/ or core/job/ is given every capability at once
 * (`Capabilities` of core/capabilities.ts, or `Context`, the entry layer's class that builds them). Each names the capabilities it reads
 * (`Output & Process`, `Pick<Runtime, 'clock'>`), so a test can drive it with just those (docs/architecture.md#layers).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Node } from 'typescript';
import ts from '../../typescript.js';
import { describe, expect, it } from 'vitest';

const root = new URL('../../..', import.meta.url).pathname;
const FOLDERS = ['src/core/submit', 'src/core/job'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `Pick<Capabilities, 'io'>` names members, so it is allowed; `Capabilities`, `Context`, `Omit<Context, …>` or
 * `import(…).Context` are not. */
function picked(node: Node): boolean {
  const parent = node.parent;
  return ts.isTypeReferenceNode(parent) && parent.typeName.getText() === 'Pick' && parent.typeArguments?.[0] === node;
}

/** The lines of `text` where a type is the whole context. */
function wholeContexts(text: string): string[] {
  // A type's name is read as written (getText), so a text without either word has none: it is not parsed (most of
  // these folders' files, and parsing them was nearly all of this file's CPU).
  if (!/Context|Capabilities/.test(text)) return [];
  const source = ts.createSourceFile('file.ts', text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: Node): void => {
    const whole =
      (ts.isTypeReferenceNode(node) && /(^|\.)(Context|Capabilities)$/.test(node.typeName.getText())) ||
      (ts.isImportTypeNode(node) && /^(Context|Capabilities)$/.test(node.qualifier?.getText() ?? ''));
    if (whole && !picked(node)) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${line + 1}: ${node.parent.getText()}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the money path takes capabilities, never all of them at once', () => {
  it('finds the whole context where it is taken (the check itself works)', () => {
    expect(wholeContexts('export function f(ctx: Context): void {}')).toHaveLength(1);
    expect(wholeContexts('class A {\n  constructor(private readonly ctx: Context) {}\n}')).toHaveLength(1);
    expect(wholeContexts("type T = Omit<Context, 'io'>;")).toHaveLength(1);
    expect(wholeContexts("function f(ctx: import('../context.js').Context): void {}")).toHaveLength(1);
    expect(wholeContexts('function f(ctx: core.Context): void {}')).toHaveLength(1);
    expect(wholeContexts('export function f(ctx: Capabilities): void {}')).toHaveLength(1);
    expect(wholeContexts("function f(ctx: import('../capabilities.js').Capabilities): void {}")).toHaveLength(1);
    expect(wholeContexts("function f(ctx: Output & Pick<Runtime, 'clock'>): void {}")).toEqual([]);
    expect(wholeContexts("function f(ctx: Pick<Context, 'io' | 'printer'>): void {}")).toEqual([]);
    expect(wholeContexts('interface FormatContext {}\nfunction f(ctx: FormatContext): void {}')).toEqual([]);
  });

  it(`${FOLDERS.join(' and ')} have none`, () => {
    const files = FOLDERS.flatMap((folder) => sourceFiles(join(root, folder)));
    expect(files.length).toBeGreaterThan(10);
    const offenders = files.flatMap((path) =>
      wholeContexts(readFileSync(path, 'utf8')).map((line) => `${relative(root, path)}:${line}`),
    );
    expect(offenders).toEqual([]);
  });
});

/**
 * Words kept apart (src/README.md#names): "retry" is re-running the items that did not complete (`taskctl retry`). In
 * the client (src/api/) a request sent again is a resend, and in the follow engine (src/core/follow/) a round after a
 * failed one is polling again, so no identifier or string there says retry. The one exception is the HTTP header
 * `Retry-After` (`retryAfterMs`, `RETRY_AFTER_MAX_MS`, `'retry-after'`): its name is the protocol's. Comments are
 * not read (they may quote the header or another project's names).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../..', import.meta.url).pathname;
const FOLDERS = ['src/api', 'src/core/follow'];
/** retry, retries, retried, retrying, in any case, inside a longer name too (`roundWithRetry`, `RETRY_MS`). */
const RETRY = /retr(?:y|ies|ied|ying)/i;
/** The header's name, as an identifier (`retryAfterMs`, `RETRY_AFTER_MAX_MS`) or as written (`Retry-After`). */
const HEADER = /retry[-_]?after/gi;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each identifier and string (template parts included) of `text` that says retry, as `line: text`. */
function retryWords(text: string, file = 'x.ts'): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const words =
      ts.isIdentifier(node) || ts.isPrivateIdentifier(node)
        ? node.text
        : ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)
          ? node.text
          : undefined;
    if (words !== undefined && RETRY.test(words.replace(HEADER, ''))) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push(`${line}: ${words}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('src/api and src/core/follow say resend and polling again, never retry', () => {
  it('finds retry in a name or a message, and lets the Retry-After header and comments be (the check itself works)', () => {
    expect(retryWords('class F { private retryAt = 0; }')).toEqual(['1: retryAt']);
    expect(retryWords('async function roundWithRetry() {}')).toEqual(['1: roundWithRetry']);
    expect(retryWords('class F { #retries = 0; }')).toEqual(['1: #retries']);
    expect(retryWords('const RETRY_MS = 1;')).toEqual(['1: RETRY_MS']);
    expect(retryWords("log('not retrying');")).toEqual(['1: not retrying']);
    expect(retryWords('log(`${why}; retrying in ${wait}`);')).toEqual(['1: ; retrying in ']);
    expect(retryWords('const x = 1;\nconst retried = true;')).toEqual(['2: retried']);
    const header =
      "const retryAfterMs = h('retry-after'); const RETRY_AFTER_MAX_MS = 1; // a retry\nlog('Retry-After');";
    expect(retryWords(header)).toEqual([]);
    expect(retryWords("log('trying again in 1s'); const backoffUntil = 0;")).toEqual([]);
  });

  it('no identifier or string of src/api or src/core/follow says retry', () => {
    const files = FOLDERS.flatMap((folder) => sourceFiles(join(ROOT, folder)));
    expect(files.length).toBeGreaterThan(20);
    const offenders = files.flatMap((path) =>
      retryWords(readFileSync(path, 'utf8'), path).map((hit) => `${relative(ROOT, path)}:${hit}`),
    );
    // A request sent again is a resend (api/resend-policy.ts); a round after a failed one is polling again.
    expect(offenders).toEqual([]);
  });
});

/**
 * Words kept apart (src/README.md#names): "retry" is re-running the items that did not complete (`taskctl retry`). In
 * the client (src/api/) a request sent again is a resend, in the follow engine (src/core/follow/) a round after a
 * failed one is polling again, and in the webhook receiver (src/webhook/) and the sandbox (src/sandbox/) an event the
 * service sends again is a redelivery, so no identifier or string there says retry. The exceptions are names that are
 * not ours: the HTTP header `Retry-After` (`retryAfterMs`, `RETRY_AFTER_MAX_MS`, `'retry-after'`), the `retry:` field
 * of a server-sent events stream, and the delivery state `retrying` of the sandbox's admin API (docs/sandbox.md), only
 * in the files that set, check or show it. Comments are not read (they may quote the header or another project's
 * names).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Node } from 'typescript';
import ts from '../../typescript.js';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../..', import.meta.url).pathname;
const FOLDERS = ['src/api', 'src/core/follow', 'src/webhook', 'src/sandbox'];
/** The webhook and sandbox commands' own files outside those folders. */
const FILES = [
  'src/commands/sandbox.ts',
  'src/commands/webhook.ts',
  'src/core/sandbox.ts',
  'src/core/sandbox-hint.ts',
  'src/core/sandbox-settings.ts',
  'src/core/webhook-listen.ts',
  'src/core/webhook-simulate.ts',
  'src/core/webhook-wiring.ts',
];
/** retry, retries, retried, retrying, in any case, inside a longer name too (`roundWithRetry`, `RETRY_MS`). */
const RETRY = /retr(?:y|ies|ied|ying)/i;
/** The header's name, as an identifier (`retryAfterMs`, `RETRY_AFTER_MAX_MS`) or as written (`Retry-After`). */
const HEADER = /retry[-_]?after/gi;
/** A server-sent events stream's reconnection field, `retry: 1000` at the start of a line. */
const SSE_FIELD = /(^|\n)retry: \d/g;
/** The delivery state of the sandbox's admin API and dashboard (docs/sandbox.md), a whole word. */
const DELIVERY_STATE = /\bretrying\b/g;
/** The files that set, check or show that state. */
const DELIVERY_STATE_FILES = [
  'src/sandbox/admin.ts',
  'src/sandbox/delivery-log.ts',
  'src/sandbox/webhooks.ts',
  'src/sandbox/dashboard/html.ts',
  'src/sandbox/dashboard/script.ts',
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * An escape that may spell a letter of retry (`\u0065`, `\x65`, `\145`, or a letter escaped for nothing: `\e` is `e`), or
 * a line continuation that may join two parts of one inside a string: where a text has none, an identifier or string
 * can say retry only where the text does.
 */
const ESCAPE = /\\[A-Za-z0-7\r\n\u2028\u2029]/;

/** Each identifier and string (template parts included) of `text` that says retry, as `line: text`. */
function retryWords(text: string, file = 'x.ts', allowState = false): string[] {
  // Only the texts that can hold one are parsed (parsing was nearly all of this file's CPU).
  if (!RETRY.test(text) && !ESCAPE.test(text)) return [];
  // No parent links: the walk goes down only, and each node's line is read from the source itself.
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  const visit = (node: Node): void => {
    const words =
      ts.isIdentifier(node) || ts.isPrivateIdentifier(node)
        ? node.text
        : ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)
          ? node.text
          : undefined;
    const ours = words?.replace(HEADER, '').replace(SSE_FIELD, '$1');
    if (ours !== undefined && RETRY.test(allowState ? ours.replace(DELIVERY_STATE, '') : ours)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push(`${line}: ${words}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('src/api, src/core/follow, src/webhook and src/sandbox say resend, polling again and redelivery, never retry', () => {
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
    expect(retryWords("res.write('retry: 1000\\nevent: hello\\n');")).toEqual([]);
    expect(retryWords("log('will retry: soon');")).toEqual(['1: will retry: soon']);
    // Spelt with escapes, or joined across a line, it is found too: such a text is parsed.
    expect(retryWords("log('r\\u0065try');")).toEqual(['1: retry']);
    expect(retryWords('const r\\u0065tries = 1;')).toEqual(['1: retries']);
    expect(retryWords("log('r\\x65tried');")).toEqual(['1: retried']);
    expect(retryWords("log('re\\\ntry');")).toEqual(['1: retry']);
    expect(retryWords("log('r\\etry');")).toEqual(['1: retry']);
    // The delivery state, only where it is allowed, and only as itself.
    const state = "record.state = 'retrying'; const redeliveryTimers = 1;";
    expect(retryWords(state)).toEqual(['1: retrying']);
    expect(retryWords(state, 'x.ts', true)).toEqual([]);
    expect(retryWords("const retryTimers = 1; log('the service will retry');", 'x.ts', true)).toEqual([
      '1: retryTimers',
      '1: the service will retry',
    ]);
  });

  it('no identifier or string of those folders and files says retry', () => {
    const files = [...FOLDERS.flatMap((folder) => sourceFiles(join(ROOT, folder))), ...FILES.map((f) => join(ROOT, f))];
    expect(files.length).toBeGreaterThan(80);
    const offenders = files.flatMap((path) => {
      const name = relative(ROOT, path);
      return retryWords(readFileSync(path, 'utf8'), path, DELIVERY_STATE_FILES.includes(name)).map(
        (hit) => `${name}:${hit}`,
      );
    });
    // A request sent again is a resend (api/resend-policy.ts); a round after a failed one is polling again; an event
    // the service sends again is a redelivery (sandbox/webhooks.ts).
    expect(offenders).toEqual([]);
  });
});

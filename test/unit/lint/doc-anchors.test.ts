/**
 * Every link to a section of the repository's Markdown (`docs/behaviour.md#jobs` in a comment, `[x](sandbox.md#dialects)`
 * or `[x](#the-contract)` in a document) names a heading that exists, by GitHub's rule for a heading's anchor:
 * lower case, punctuation other than `-` and `_` dropped, each space a `-`, a repeated heading numbered `-1`, `-2`.
 * Headings inside fenced code blocks are not headings. A comment in src/, test/ or scripts/ cites such a section, or
 * states the fact plainly, never an issue number (`(#` and digits): the tree is read without the tracker.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../..', import.meta.url).pathname;
const SELF = 'test/unit/lint/doc-anchors.test.ts';
const SKIPPED = new Set(['node_modules', 'dist', 'fixtures', '.git']);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : files(path);
    return /\.(?:md|ts|js)$/.test(entry.name) ? [path] : [];
  });
}

/** GitHub's anchor of one heading's text (inline code, links and emphasis reduced to their words). */
function slug(heading: string): string {
  return heading
    .trim()
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown text's headings. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const counts = new Map<string, number>();
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (marker) fence = fence === undefined ? marker : fence === marker ? undefined : fence;
    const heading = fence === undefined ? /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1] : undefined;
    if (heading === undefined) continue;
    const base = slug(heading);
    const seen = counts.get(base) ?? 0;
    counts.set(base, seen + 1);
    found.add(seen === 0 ? base : `${base}-${seen}`);
  }
  return found;
}

interface Link {
  /** The repository path of the file the link is in, and its line. */
  from: string;
  line: number;
  /** The repository path of the Markdown file it points into, and the anchor. */
  target: string;
  anchor: string;
}

/**
 * The section links in one file. In Markdown, a link's target is relative to the file (`(#x)` is the file itself); in
 * code, a path like `docs/behaviour.md#x` is from the repository's root, or else from the file's folder.
 */
function links(from: string, text: string, exists: (path: string) => boolean): Link[] {
  const found: Link[] = [];
  const markdown = from.endsWith('.md');
  const pattern = markdown ? /\]\(([^)\s#]*)#([^)\s]+)\)/g : /([\w./-]*\.md)#([\w-]+)/g;
  // Only a line with the pattern's fixed part is matched (most lines have none, and matching every one was most of
  // this file's CPU).
  const mark = markdown ? '](' : '.md#';
  if (!text.includes(mark)) return found;
  for (const [index, line] of text.split('\n').entries()) {
    if (!line.includes(mark)) continue;
    for (const match of line.matchAll(pattern)) {
      const [, path = '', anchor = ''] = match;
      if (/^[a-z]+:/i.test(path) || (path !== '' && !path.endsWith('.md'))) continue;
      const local = normalize(join(dirname(from), path));
      const target = path === '' ? from : markdown || !exists(path) ? local : normalize(path);
      found.push({ from, line: index + 1, target, anchor });
    }
  }
  return found;
}

function brokenLinks(all: readonly Link[], read: (path: string) => string | undefined): string[] {
  const cache = new Map<string, Set<string> | undefined>();
  const anchorsOf = (path: string) => {
    if (!cache.has(path)) {
      const text = read(path);
      cache.set(path, text === undefined ? undefined : anchors(text));
    }
    return cache.get(path);
  };
  return all
    .filter((link) => anchorsOf(link.target)?.has(decodeURIComponent(link.anchor)) === false)
    .map((link) => `${link.from}:${link.line}: ${link.target}#${link.anchor}`);
}

const readRepo = (path: string) => {
  const full = join(ROOT, path);
  return existsSync(full) ? readFileSync(full, 'utf8') : undefined;
};
const existsRepo = (path: string) => existsSync(join(ROOT, path));

describe('links to a section of a document name a heading that exists', () => {
  it('computes GitHub anchors, and flags the links that name no heading (the check itself works)', () => {
    expect(slug('The contract (`/openapi.json`)')).toBe('the-contract-openapijson');
    expect(slug('Admin API (`/__sandbox/*`) and the dashboard (`/`)')).toBe('admin-api-__sandbox-and-the-dashboard-');
    expect(slug('Jobs: `show --job`, `wait --job`')).toBe('jobs-show---job-wait---job');
    const doc = '# Title\n## Jobs\n```sh\n# not a heading\n```\n## Jobs\n';
    expect([...anchors(doc)]).toEqual(['title', 'jobs', 'jobs-1']);
    // The links as they once were: a heading renamed ("Journal" became "Jobs") and an anchor written by hand.
    const code = '// docs/behaviour.md#journal, docs/behaviour.md#jobs\n/** docs/sandbox.md#admin-api */';
    const markdown =
      'See [the journal](behaviour.md#journal), [jobs](#jobs), [x](https://example.com/a.md#b), [y](../bin/taskctl.js#L1).';
    const found = [
      ...links('src/x.ts', code, existsRepo),
      ...links('docs/commands.md', markdown, existsRepo),
      ...links('docs/behaviour.md', '[jobs](#jobs)', existsRepo),
    ];
    const read = (path: string) => (path === 'docs/commands.md' ? doc : readRepo(path));
    expect(brokenLinks(found, read)).toEqual([
      'src/x.ts:1: docs/behaviour.md#journal',
      'src/x.ts:2: docs/sandbox.md#admin-api',
      'docs/commands.md:1: docs/behaviour.md#journal',
    ]);
  });

  it('every section link in docs/, src/, test/, scripts/ and the root names a heading of its document', () => {
    const roots = ['docs', 'src', 'test', 'scripts'].map((dir) => join(ROOT, dir));
    const top = readdirSync(ROOT).filter((name) => /\.(?:md|js)$/.test(name));
    const all = [...roots.flatMap(files), ...top.map((name) => join(ROOT, name))].flatMap((path) => {
      const from = relative(ROOT, path);
      // This file's own links are the broken examples above.
      return from === SELF ? [] : links(from, readFileSync(path, 'utf8'), existsRepo);
    });
    expect(all.length).toBeGreaterThan(200);
    expect(brokenLinks(all, readRepo)).toEqual([]);
  });
});

/** An issue number in parentheses, as a comment would cite one. */
const ISSUE_NUMBER = /\(#\d+\)/;

/** Each comment of a source text (line and block) with the line it starts on; strings are not comments. */
function comments(text: string): Array<{ line: number; text: string }> {
  const found: Array<{ line: number; text: string }> = [];
  // The comments come in order, so each line number is counted on from the last one's, not from the text's start.
  let line = 1;
  let counted = 0;
  const lineAt = (index: number) => {
    for (; counted < index; counted += 1) if (text.charCodeAt(counted) === 10) line += 1;
    return line;
  };
  for (const match of text.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`\\])\/\/[^\n]*/g))
    match[0].split('\n').forEach((part, offset) => found.push({ line: lineAt(match.index) + offset, text: part }));
  return found;
}

/** Each comment line citing an issue number, as `path:line: the line`. */
function issueNumbers(from: string, text: string): string[] {
  return comments(text)
    .filter((comment) => ISSUE_NUMBER.test(comment.text))
    .map((comment) => `${from}:${comment.line}: ${comment.text.trim()}`);
}

describe('comments cite the repository, never an issue number', () => {
  it('finds an issue number in a line or block comment, not in code or a string (the check itself works)', () => {
    // Put together from pieces, so this file holds none itself.
    const number = ['(#', '14)'].join('');
    const text = [
      `// Plain words for the codes ${number}; the code is in the trace.`,
      `/**\n * killed, then restarted ${number}: every task kept\n */`,
      `const colour = '${number}';`,
      `const url = 'https://example.com/${number}';`,
      '// Plain words (docs/behaviour.md#error-mapping).',
    ].join('\n');
    expect(issueNumbers('src/x.ts', text)).toEqual([
      `src/x.ts:1: // Plain words for the codes ${number}; the code is in the trace.`,
      `src/x.ts:3: * killed, then restarted ${number}: every task kept`,
    ]);
  });

  it('no comment in src/, test/ or scripts/ cites an issue number', () => {
    const sources = ['src', 'test', 'scripts']
      .flatMap((dir) => files(join(ROOT, dir)))
      .filter((path) => /\.(?:ts|js)$/.test(path))
      .map((path) => relative(ROOT, path))
      .filter((from) => from !== SELF);
    expect(sources.length).toBeGreaterThan(300);
    expect(sources.flatMap((from) => issueNumbers(from, readFileSync(join(ROOT, from), 'utf8')))).toEqual([]);
  });
});

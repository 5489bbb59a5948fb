import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readItems } from '../../../../src/core/items/index.js';
import { inputError, itemsFrom, makeTempDir, producer, streamOf, usageError, type TempDir } from './item-sources.js';
import { AS_ROOT, skippedUnless } from '../../../skip-reason.js';

let temp: TempDir;
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(async () => {
  await temp.remove();
});

async function file(name: string, content: string | Buffer): Promise<string> {
  const path = temp.path(name);
  await writeFile(path, content);
  return path;
}

describe('readItems: sources', () => {
  it('reads arguments, files and stdin in the order given, naming each position', async () => {
    const path = await file('items.txt', 'b.com\n\nc.com\n');
    const result = await readItems([
      { kind: 'args', values: ['a.com'] },
      { kind: 'file', path },
      { kind: 'stdin', stream: streamOf(['# list\nd.com']) },
    ]);
    expect(result.items).toEqual(['a.com', 'b.com', 'c.com', 'd.com']);
    expect([0, 1, 2, 3].map((index) => result.where(index))).toEqual([
      'argument 1',
      `${path}:1`,
      `${path}:3`,
      'stdin:2',
    ]);
  });

  it('refuses a terminal on stdin as the only source instead of waiting', async () => {
    const { stream, pulls } = producer(() => Buffer.from('never read\n'));
    const error = await usageError(readItems([{ kind: 'stdin', stream, isTTY: true }]), /no items given/);
    expect(error.hint).toMatch(/pipe items in, pass them as arguments, or use -f FILE/i);
    expect(pulls()).toBe(0);
    await usageError(readItems([{ kind: 'stdin', stream: streamOf([], true) }]), /no items given/);
  });

  it('skips a terminal stdin when other sources give items', async () => {
    const result = await readItems([
      { kind: 'args', values: ['a.com'] },
      { kind: 'stdin', stream: streamOf(['x'], true) },
    ]);
    expect(result.items).toEqual(['a.com']);
  });

  it('is a usage error to give no sources, or only empty arguments', async () => {
    await usageError(readItems([]), /no items given/);
    await usageError(readItems([{ kind: 'args', values: [] }]), /no items given/);
  });

  it('refuses stdin twice', async () => {
    await usageError(
      readItems([
        { kind: 'stdin', stream: streamOf(['a']) },
        { kind: 'stdin', stream: streamOf(['b']) },
      ]),
      /more than once/,
    );
  });

  it('trims arguments and rejects an empty one by position', async () => {
    const { items } = await readItems([{ kind: 'args', values: ['\u00a0a.com ', '#b.com'] }]);
    expect(items).toEqual(['a.com', '#b.com']); // arguments are literal: no comments
    await inputError(readItems([{ kind: 'args', values: ['a.com', '  '] }]), /^argument 2 is empty/);
    await inputError(readItems([{ kind: 'args', values: ['a\tb'] }]), /^argument 1: control character U\+0009 \(tab\)/);
  });

  it('accepts string chunks from a stream set to an encoding', async () => {
    const stream = (async function* () {
      yield 'a.com\nb.';
      yield 'com\n';
    })();
    expect((await readItems([{ kind: 'stdin', stream }])).items).toEqual(['a.com', 'b.com']);
  });
});

describe('readItems: normalisation', () => {
  it('strips a UTF-8 BOM', async () => {
    expect(await itemsFrom([Buffer.from([0xef, 0xbb, 0xbf]), 'a.com\nb.com'])).toEqual(['a.com', 'b.com']);
  });

  it('decodes UTF-16LE and UTF-16BE with a BOM', async () => {
    const text = 'münchen.de\r\nb.com\r\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
    expect(await itemsFrom([le.subarray(0, 5), le.subarray(5)])).toEqual(['münchen.de', 'b.com']);
    expect(await itemsFrom([be])).toEqual(['münchen.de', 'b.com']);
  });

  it('handles CRLF and lone CR line ends, also split across chunks', async () => {
    expect(await itemsFrom(['a.com\r', '\nb.com\rc.com\r\n'])).toEqual(['a.com', 'b.com', 'c.com']);
  });

  it('trims spaces, tabs, NBSP and zero-width characters at the edges only', async () => {
    const lines = ['\t a.com \t', '\u00a0b.com\u00a0', '\u200bc.com\u200d', '\ufeffd.com\u200c', ' \u200b e.com '];
    expect(await itemsFrom([lines.join('\n')])).toEqual(['a.com', 'b.com', 'c.com', 'd.com', 'e.com']);
    expect(await itemsFrom(['a\u200bb.com'])).toEqual(['a\u200bb.com']); // inside: left for validation to judge
  });

  it('skips blank and comment lines (also indented) in lines format', async () => {
    expect(await itemsFrom(['# header\n\n   \n  # indented\na.com\n#b.com\n'])).toEqual(['a.com']);
  });

  it('rejects control characters inside an item, naming the line', async () => {
    await inputError(itemsFrom(['a.com\nb\u001b[31m.com\n']), /^stdin:2: control character U\+001B \(escape\) inside/);
    await inputError(itemsFrom(['a.com\nx\ty\n']), /^stdin:2: control character U\+0009 \(tab\)/);
  });
});

describe('readItems: faults name the line', () => {
  it('rejects invalid UTF-8 on the line it is on, even across chunks', async () => {
    const error = await inputError(
      itemsFrom(['a.com\nb.com\n', Buffer.from([0x63, 0xff, 0x0a])]),
      /^stdin:3: invalid UTF-8/,
    );
    expect(error.hint).toMatch(/UTF-8/);
  });

  it('rejects Latin-1 text in a file with the file name and line', async () => {
    const path = await file('latin1.txt', Buffer.from('a.com\nm\u00fcnchen.de\n', 'latin1'));
    await inputError(readItems([{ kind: 'file', path }]), new RegExp(`^${escape(path)}:2: invalid UTF-8`));
  });

  it('rejects NUL bytes as a binary file', async () => {
    const error = await inputError(itemsFrom(['a.com\r\nb\0']), /^stdin:2: NUL byte: this looks like a binary file/);
    expect(error.hint).toMatch(/BOM/);
  });

  it('rejects UTF-16 without a BOM as binary (NUL), with a hint about the BOM', async () => {
    const error = await inputError(itemsFrom([Buffer.from('a.com\n', 'utf16le')]), /^stdin:1: NUL byte/);
    expect(error.hint).toMatch(/UTF-16 text needs a byte-order mark/);
  });

  it('stops at an endless stream of zeros after the first chunk', async () => {
    const zeros = producer(() => Buffer.alloc(64 * 1024));
    await inputError(readItems([{ kind: 'stdin', stream: zeros.stream }]), /^stdin:1: NUL byte/);
    expect(zeros.pulls()).toBe(1);
    expect(zeros.stopped()).toBe(true);
  });

  it('stops a 10 MiB line after the first chunks, without buffering it', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const long = producer((pull) => (pull < 160 ? chunk : undefined)); // 160 × 64 KiB = 10 MiB
    await inputError(
      readItems([{ kind: 'stdin', stream: long.stream }]),
      /^stdin:1: line is longer than 65,536 characters; stopped reading/,
    );
    expect(long.pulls()).toBeLessThanOrEqual(2);
    expect(long.stopped()).toBe(true);
  });

  it('stops a 10 MiB line in a file', async () => {
    const path = await file('long.txt', `a.com\n${'x'.repeat(10 * 1024 * 1024)}\n`);
    await inputError(readItems([{ kind: 'file', path }]), new RegExp(`^${escape(path)}:2: line is longer than`));
  });

  it('ends an endless stream of valid lines at the item cap', async () => {
    const lines = Buffer.from('a.com\n'.repeat(1000));
    const endless = producer(() => lines);
    await inputError(
      readItems([{ kind: 'stdin', stream: endless.stream }], { maxItems: 5000 }),
      /too many items: more than 5,000 \(stopped at stdin:5001\)/,
    );
    expect(endless.pulls()).toBeLessThanOrEqual(6);
    expect(endless.stopped()).toBe(true);
  });

  it('ends an endless stream of blank lines at the byte cap', async () => {
    const blanks = producer(() => Buffer.alloc(64 * 1024, 0x0a));
    await inputError(
      readItems([{ kind: 'stdin', stream: blanks.stream }], { maxBytes: 1024 * 1024 }),
      /input is larger than 1 MiB \(stopped reading stdin\)/,
    );
    expect(blanks.pulls()).toBe(17);
  });

  it('counts the byte cap over all sources together', async () => {
    const path = await file('a.txt', 'a.com\n'.repeat(100));
    await inputError(
      readItems(
        [
          { kind: 'file', path },
          { kind: 'stdin', stream: streamOf(['b.com\n'.repeat(100)]) },
        ],
        {
          maxBytes: 1000,
        },
      ),
      /stopped reading stdin/,
    );
  });

  it('rejects an empty file, and one with only comments, saying so', async () => {
    const empty = await file('empty.txt', '');
    const comments = await file('comments.txt', '# nothing\n\n  \n');
    const emptyMessage = new RegExp(`^no items: ${escape(empty)} is empty or has only comments`);
    await inputError(readItems([{ kind: 'file', path: empty }]), emptyMessage);
    await inputError(readItems([{ kind: 'file', path: comments }]), /is empty or has only comments/);
    await inputError(itemsFrom([]), /^no items: stdin is empty/);
    await inputError(
      readItems([
        { kind: 'file', path: empty },
        { kind: 'file', path: comments },
      ]),
      /^no items: .*empty\.txt, .*comments\.txt are empty/,
    );
  });

  it('rejects a directory', async () => {
    const dir = temp.path('folder');
    await mkdir(dir);
    const error = await inputError(readItems([{ kind: 'file', path: dir }]), /it is a directory/);
    expect(error.hint).toMatch(/Pass a file/);
  });

  it('rejects a missing file with a hint', async () => {
    const missing = temp.path('nope.txt');
    const error = await inputError(readItems([{ kind: 'file', path: missing }]), /nope\.txt: no such file/);
    expect(error.hint).toMatch(/Check the path/);
  });

  // Root reads anything, so EACCES cannot be provoked there.
  it.skipIf(process.getuid?.() === 0)(
    skippedUnless('rejects an unreadable file', process.getuid?.() !== 0, AS_ROOT),
    async () => {
      const path = await file('secret.txt', 'a.com\n');
      await chmod(path, 0o000);
      await inputError(readItems([{ kind: 'file', path }]), /permission denied/);
    },
  );

  it('turns a failing stream into an input error', async () => {
    const stream = (async function* () {
      yield Buffer.from('a.com\n');
      throw Object.assign(new Error('read EIO'), { code: 'EIO' });
    })();
    await inputError(readItems([{ kind: 'stdin', stream }]), /^cannot read stdin: an input\/output error$/);
  });

  it('quotes file names with control characters or spaces in messages', async () => {
    const path = await file('bad\u001bname.txt', '');
    const error = await inputError(readItems([{ kind: 'file', path }]), /no items/);
    expect(error.message).not.toContain('\u001b');
    expect(error.message).toContain('\\u001b');
  });

  it('rejects nonsensical limits as usage errors', async () => {
    await usageError(readItems([{ kind: 'args', values: ['a'] }], { maxItems: 0 }), /maxItems/);
  });
});

describe('readItems: format by extension', () => {
  it('reads .json, .ndjson, .jsonl and .csv by their formats, anything else as lines', async () => {
    const json = await file('a.JSON', '["a.com", "b.com"]');
    const ndjson = await file('b.ndjson', '"c.com"\n"d.com"\n');
    const jsonl = await file('c.jsonl', '"e.com"\n');
    const csv = await file('d.csv', 'domain\nf.com\n');
    const txt = await file('e.list', '["g.com"]\n');
    const { items } = await readItems([json, ndjson, jsonl, csv, txt].map((path) => ({ kind: 'file' as const, path })));
    expect(items).toEqual(['a.com', 'b.com', 'c.com', 'd.com', 'e.com', 'f.com', '["g.com"]']);
  });

  it('lets --format override the extension, and applies it to stdin', async () => {
    const path = await file('items.txt', '["a.com"]');
    expect((await readItems([{ kind: 'file', path }], { format: 'json' })).items).toEqual(['a.com']);
    expect(await itemsFrom(['"b.com"\n'], { format: 'ndjson' })).toEqual(['b.com']);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

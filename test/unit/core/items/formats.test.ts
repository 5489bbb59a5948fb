import { describe, expect, it } from 'vitest';
import { formatFromPath, readItems } from '../../../../src/core/items/index.js';
import { inputError, itemsFrom, producer, streamOf } from './item-sources.js';

const json = (text: string, column?: string) =>
  itemsFrom([text], { format: 'json', ...(column !== undefined && { column }) });
const ndjson = (text: string, column?: string) =>
  itemsFrom([text], { format: 'ndjson', ...(column !== undefined && { column }) });
const csv = (text: string | Buffer, column?: string) =>
  itemsFrom([text], { format: 'csv', ...(column !== undefined && { column }) });

describe('formatFromPath', () => {
  it('maps extensions case-insensitively, defaulting to lines', () => {
    expect(['a.json', 'a.NDJSON', 'a.jsonl', 'a.Csv', 'a.txt', 'json', 'dir.json/file'].map(formatFromPath)).toEqual([
      'json',
      'ndjson',
      'ndjson',
      'csv',
      'lines',
      'lines',
      'lines',
    ]);
  });
});

describe('json', () => {
  it('streams the array: an element over the cap is refused as soon as the cap is passed', async () => {
    const endless = producer((pull) => Buffer.from(pull === 0 ? '["a.com", "' : 'x'.repeat(60)));
    const read = readItems([{ kind: 'stdin', stream: endless.stream }], { format: 'json', maxLineLength: 100 });
    await inputError(read, /^stdin:1: item 2 is longer than 100 characters; stopped reading/);
    expect(endless.pulls()).toBeLessThan(5);
  });

  it('reads an array of strings, trimming and skipping blanks', async () => {
    expect(await json('\ufeff[" a.com ", "", "b.com"]')).toEqual(['a.com', 'b.com']);
  });

  it('names elements 1-based as "FILE item N"', async () => {
    const stream = streamOf(['["a.com", "b.com"]']);
    const read = await readItems([{ kind: 'stdin', stream }], { format: 'json' });
    expect(read.where(1)).toBe('stdin item 2');
  });

  it('reads a property of object elements with --column', async () => {
    expect(await json('[{"domain": "a.com", "n": 1}, {"domain": "b.com"}]', 'domain')).toEqual(['a.com', 'b.com']);
  });

  it('rejects objects without --column, listing their properties', async () => {
    const error = await inputError(
      json('[{"domain": "a.com", "note": "x"}]'),
      /^stdin item 1 is an object with no "target"; choose its property with --column NAME/,
    );
    expect(error.hint).toBe('Its properties: "domain", "note".');
  });

  it('rejects an object missing the column, by item number', async () => {
    const twoItems = json('[{"domain": "a.com"}, {"name": "b.com"}]', 'domain');
    await inputError(twoItems, /^stdin item 2 has no "domain" property/);
  });

  it('rejects non-string items with their index and type', async () => {
    await inputError(json('["a.com", "b.com", 3]'), /^stdin item 3 is a number; items must be strings/);
    await inputError(json('[null]'), /item 1 is null/);
    await inputError(json('[true]'), /item 1 is a boolean/);
    await inputError(json('[["a.com"]]'), /item 1 is an array/);
    await inputError(json('[{"d": 5}]', 'd'), /^stdin item 1: "d" is a number; items must be strings/);
  });

  it('never rounds a big number into an item, nor echoes a rounded one', async () => {
    const error = await inputError(json('["a.com", 12345678901234567890123]'), /item 2 is a number/);
    expect(error.message).not.toMatch(/1\.2345|12345678901234567000000/);
    expect(error.hint).toMatch(/Quote numbers/);
    expect(await json('["12345678901234567890123"]')).toEqual(['12345678901234567890123']);
  });

  it('treats __proto__ as a plain property and never reads inherited ones', async () => {
    expect(await json('[{"__proto__": "a.com"}]', '__proto__')).toEqual(['a.com']);
    await inputError(json('[{"__proto__": {"polluted": "x"}}]', 'polluted'), /has no "polluted" property/);
    await inputError(json('[{}]', 'constructor'), /has no "constructor" property/);
    await inputError(json('[{}]', 'toString'), /has no "toString" property/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('survives 10,000-deep nesting with an input error', async () => {
    await inputError(json(`${'['.repeat(10_000)}${']'.repeat(10_000)}`), /item 1 is an array/);
    await inputError(json(`[${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}]`, 'a'), /"a" is an object/);
    await inputError(json('['.repeat(10_000)), /^stdin:1:10001: invalid JSON \(it ends before the JSON is complete\)/);
  });

  it('names the line and column of a syntax error, without echoing raw input', async () => {
    const trailingComma = json('[\n  "a.com",\n  "b.com",\n]');
    const error = await inputError(trailingComma, /^stdin:4:1: invalid JSON \(unexpected '\]'\)/);
    expect(error.hint).toMatch(/--format lines/);
    await inputError(json('[\r\n"a",\r\n\u001b]'), /^stdin:3:1: invalid JSON \(unexpected U\+001B \(escape\)\)/);
    await inputError(json('a.com\nb.com\n'), /^stdin:1:1: invalid JSON/);
  });

  it('rejects a top-level value that is not an array', async () => {
    await inputError(json('{"items": ["a.com"]}'), /^stdin: expected a JSON array of items, found an object/);
    await inputError(json('"a.com"'), /found a string/);
  });

  it('treats an empty document or array as no items', async () => {
    await inputError(json('  \n'), /^no items: stdin is empty or an empty array/);
    await inputError(json('[]'), /^no items/);
  });

  it('rejects control characters inside strings by item', async () => {
    await inputError(json('["a.com", "b\\u0000c"]'), /^stdin item 2: control character U\+0000 \(NUL\)/);
  });

  it('is not subject to the line length cap (minified files are one line)', async () => {
    const items = Array.from({ length: 20_000 }, (_, i) => `d${i}.com`);
    expect(await itemsFrom([JSON.stringify(items)], { format: 'json', maxLineLength: 100 })).toHaveLength(20_000);
  });

  it('reports invalid UTF-8 by line', async () => {
    const chunks = ['[\n"a",\n', Buffer.from([0x22, 0xc3, 0x28, 0x22, 0x5d])];
    await inputError(itemsFrom(chunks, { format: 'json' }), /^stdin:3: invalid UTF-8/);
  });
});

describe('ndjson', () => {
  it('reads objects with a "target" property as their target without --column', async () => {
    expect(await ndjson('{"target":"a.com"}\n{"target":"b.com","status":"completed"}\n')).toEqual(['a.com', 'b.com']);
    expect(await json('[{"target":"a.com"},{"target":"b.com"}]')).toEqual(['a.com', 'b.com']);
    expect(await ndjson('{"target":"a.com","d":"x.com"}\n', 'd')).toEqual(['x.com']);
  });

  it('a bad object line never gets the hint about JSON strings', async () => {
    const error = await inputError(
      ndjson('{"target":null}\n'),
      /^stdin:1: item: "target" is null; items must be strings/,
    );
    expect(error.hint).not.toMatch(/one JSON string per line/);
    expect(error.hint).toMatch(/"target"/);
  });

  it('reads one string or object per line, skipping blank lines', async () => {
    expect(await ndjson('"a.com"\n\n  "b.com"  \r\n')).toEqual(['a.com', 'b.com']);
    expect(await ndjson('{"d":"a.com"}\n{"d":"b.com","x":1}\n', 'd')).toEqual(['a.com', 'b.com']);
  });

  it('names the line of a bad value', async () => {
    await inputError(ndjson('"a.com"\n42\n'), /^stdin:2: item is a number; items must be strings/);
    await inputError(ndjson('"a.com"\n{"x": "b"}\n', 'd'), /^stdin:2: item has no "d" property/);
  });

  it('names the line and column of invalid JSON', async () => {
    await inputError(ndjson('"a.com"\n"b.com\n'), /^stdin:2:7: invalid JSON \(it ends before the JSON is complete\)/);
    await inputError(ndjson('"a.com"\na.com\n'), /^stdin:2:1: invalid JSON \(unexpected 'a'\)/);
  });

  it('survives deep nesting on a line', async () => {
    await inputError(ndjson(`${'['.repeat(10_000)}${']'.repeat(10_000)}\n`), /^stdin:1: item is an array/);
  });
});

describe('csv', () => {
  it('reads the first column by default, skipping the header', async () => {
    expect(await csv('domain,note\r\na.com,first\r\nb.com,second\r\n')).toEqual(['a.com', 'b.com']);
  });

  it('chooses a column by header name, exactly or case-insensitively', async () => {
    expect(await csv('id,Domain\n1,a.com\n2,b.com\n', 'Domain')).toEqual(['a.com', 'b.com']);
    expect(await csv('id, Domain \n1,a.com\n', 'domain')).toEqual(['a.com']);
  });

  it('lists the available columns when the named one is missing', async () => {
    const missing = csv('id,site\n1,a.com\n', 'domain');
    const error = await inputError(missing, /^stdin:1: no column "domain" in the CSV header/);
    expect(error.hint).toMatch(/Columns: "id", "site"/);
  });

  it('handles quotes, escaped quotes, commas and newlines inside quotes (RFC 4180)', async () => {
    const text = 'name,domain\r\n"Smith, J","a.com"\r\n"say ""hi""","b.com"\r\n"two\r\nlines",c.com\r\n';
    expect(await csv(text, 'domain')).toEqual(['a.com', 'b.com', 'c.com']);
    expect(await csv('name\n"Smith, J"\n"say ""hi"""\n""\n')).toEqual(['Smith, J', 'say "hi"']);
    // A line break inside a quoted value is legal CSV, but never part of an item.
    await inputError(csv(text, 'name'), /^stdin:4: control character U\+000A \(line feed\)/);
  });

  it('names multi-line records by the line they start on', async () => {
    const read = await readItems([{ kind: 'stdin', stream: streamOf(['note,domain\n"x\ny",a.com\n"z",b.com\n']) }], {
      format: 'csv',
      column: 'domain',
    });
    expect(read.items).toEqual(['a.com', 'b.com']);
    expect([read.where(0), read.where(1)]).toEqual(['stdin:2', 'stdin:4']);
  });

  it('keeps quotes inside unquoted fields, skips empty cells, short rows and blank lines', async () => {
    expect(await csv('d,n\na"b.com,1\n,2\n\nc.com\n', 'd')).toEqual(['a"b.com', 'c.com']);
    expect(await csv('a,d\n1\n2,x.com,\n', 'd')).toEqual(['x.com']);
  });

  it('strips a BOM before the header', async () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('domain\na.com\n')]);
    expect(await csv(withBom, 'domain')).toEqual(['a.com']);
  });

  it('rejects text after a closing quote and an unclosed quote, by line', async () => {
    await inputError(csv('d\n"a.com"x\n'), /^stdin:2: unexpected 'x' after a closing quote/);
    await inputError(csv('d\na.com\n"b.com\nc.com\n'), /^stdin:3: quoted field is never closed/);
  });

  it('caps a quoted field that never closes', async () => {
    const unclosed = itemsFrom(['d\n"', 'x\n'.repeat(100)], { format: 'csv', maxLineLength: 50 });
    await inputError(unclosed, /^stdin:2: CSV record is longer than 50 characters/);
  });

  it('treats a header-only file as no items', async () => {
    await inputError(csv('domain\n'), /^no items: stdin is empty or has no values under its header/);
  });
});

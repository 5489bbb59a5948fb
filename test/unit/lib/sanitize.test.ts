import fc from 'fast-check';
import { codePointString } from '../../code-points.js';
import { describe, expect, it } from 'vitest';
import {
  CONTROL_CHAR,
  charWords,
  hasUnsafeChars,
  neutralise,
  neutraliseJson,
  neutraliseMultiline,
  stripControls,
} from '../../../src/lib/sanitize.js';

// Every code point a terminal may act on: C0, DEL, C1, line/paragraph separators, bidi embeddings/overrides/isolates.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028-\u202e\u2066-\u2069]/;
const CONTROL_EXCEPT_LF_TAB = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028-\u202e\u2066-\u2069]/;

/** Strings rich in dangerous code points, so the property is not tested on mostly-ASCII input only. */
const hostileString = fc
  .array(
    fc.oneof(
      codePointString(),
      fc.constantFrom('\x1b', '\x1b[31m', '\x1b]0;title\x07', '\u009b', '\u0085', '\x7f', '\r', '\n', '\t', '\r\n'),
      fc.constantFrom('\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'),
    ),
    { maxLength: 20 },
  )
  .map((parts) => parts.join(''));

describe('neutralise', () => {
  it('returns clean text unchanged, including non-ASCII', () => {
    const text = 'example.com — 日本語 ✓ café';
    expect(neutralise(text)).toBe(text);
    expect(hasUnsafeChars(text)).toBe(false);
  });

  it('turns ANSI escape sequences into visible \\x1b', () => {
    expect(neutralise('\x1b[31mred\x1b[0m')).toBe('\\x1b[31mred\\x1b[0m');
    // OSC title change terminated by BEL
    expect(neutralise('\x1b]0;pwned\x07')).toBe('\\x1b]0;pwned\\x07');
  });

  it('escapes C1 controls and DEL the JSON way (\\u009b), C0 as \\x00', () => {
    expect(neutralise('a\u009b31mb')).toBe('a\\u009b31mb');
    expect(neutralise('\u0085\u0080\u009f')).toBe('\\u0085\\u0080\\u009f');
    expect(neutralise('x\x7fy')).toBe('x\\u007fy');
    expect(neutralise('\0')).toBe('\\x00');
  });

  it('property: neutralising a JSON line keeps it valid JSON with the same value (watch, webhook listen)', () => {
    fc.assert(
      fc.property(hostileString, fc.jsonValue(), (text, value) => {
        const line = JSON.stringify({ text, value });
        // The value read back, written again, is the line itself: the same value, keys in order (no toEqual walk).
        expect(JSON.stringify(JSON.parse(neutralise(line)))).toBe(line);
      }),
      { numRuns: 500 },
    );
  });

  it('escapes bidi overrides and isolates (Trojan Source)', () => {
    expect(neutralise('abc\u202eexe.txt')).toBe('abc\\u202eexe.txt');
    expect(neutralise('\u202a\u202b\u202c\u202d')).toBe('\\u202a\\u202b\\u202c\\u202d');
    expect(neutralise('\u2066\u2067\u2068\u2069')).toBe('\\u2066\\u2067\\u2068\\u2069');
  });

  it('makes text one line: \\n, \\r and \\t become visible escapes', () => {
    expect(neutralise('a\nb\r\nc\td')).toBe('a\\nb\\r\\nc\\td');
  });

  it('property: the output never contains a control character', () => {
    fc.assert(
      fc.property(hostileString, (text) => {
        expect(neutralise(text)).not.toMatch(CONTROL);
      }),
      { numRuns: 500 },
    );
  });

  it('property: text without controls is returned as is', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        fc.pre(!CONTROL.test(text));
        expect(neutralise(text)).toBe(text);
      }),
    );
  });
});

describe('neutraliseMultiline', () => {
  it('keeps \\n and \\t, turns CRLF into LF, escapes a lone \\r and ESC', () => {
    expect(neutraliseMultiline('line 1\r\nline\t2\n')).toBe('line 1\nline\t2\n');
    expect(neutraliseMultiline('progress 10%\rdone')).toBe('progress 10%\\rdone');
    expect(neutraliseMultiline('\x1b[2Jcleared')).toBe('\\x1b[2Jcleared');
    expect(neutraliseMultiline('\u202e')).toBe('\\u202e');
  });

  it('property: the output contains no control character other than \\n and \\t', () => {
    fc.assert(
      fc.property(hostileString, (text) => {
        expect(neutraliseMultiline(text)).not.toMatch(CONTROL_EXCEPT_LF_TAB);
      }),
      { numRuns: 500 },
    );
  });
});

describe('neutraliseJson', () => {
  it('escapes DEL, C1 and bidi as \\uXXXX and leaves the rest of the JSON text alone', () => {
    expect(neutraliseJson('{"s":"a\u009bb\u202e\x7f"}')).toBe('{"s":"a\\u009bb\\u202e\\u007f"}');
    expect(neutraliseJson('{"s":"日本"}')).toBe('{"s":"日本"}');
  });
});

describe('stripControls', () => {
  it('removes C0, DEL and C1 and keeps everything else', () => {
    expect(stripControls('a\x1b[1mb\u009bc\x7f\nd ✓')).toBe('a[1mbcd ✓');
    expect(CONTROL_CHAR.test(stripControls('\x00\x1f\x80\x9f'))).toBe(false);
  });
});

describe('charWords: the one way a message names a character', () => {
  it('printable ASCII quoted; anything else by its code point, with its name when it has one', () => {
    expect(charWords(0x7d)).toBe("'}'");
    expect(charWords(0x09)).toBe('U+0009 (tab)');
    expect(charWords(0x20)).toBe('U+0020 (space)');
    expect(charWords(0x1b)).toBe('U+001B (escape)');
    expect(charWords(0x2028)).toBe('U+2028 (line separator)');
    expect(charWords(0x01)).toBe('U+0001');
    expect(charWords(0xe9)).toBe('U+00E9');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonFault, jsonSyntaxWords, locateJsonError } from '../../../src/lib/json-locate.js';

describe('locateJsonError', () => {
  it('names the first character JSON.parse would stop at: an escape by its backslash, a bad word or number by its start', () => {
    const cases: Array<[string, number]> = [
      ['{"a":1}', -1],
      ['{"a":"\\/\\b\\f\\n\\r\\t\\"\\\\\\u00aF"}', -1],
      [' [1e5, -0.5E-3, true, false, null, "x"] ', -1],
      ['', 0],
      ['  ', 2],
      ['{"a" 1}', 5],
      ['{a:1}', 1],
      ['{"a":1,}', 7],
      ['[1,]', 3],
      ['[1 2]', 3],
      ['01', 1],
      ['-', 0],
      ['-x', 0],
      ['1.', 1],
      ['1e', 1],
      ['tru', 0],
      ['nul', 0],
      ['"abc', 4],
      ['"a\\', 2],
      ['"a\\x"', 2],
      ['"\\u12"', 1],
      ['"\\u12', 1],
      ['"\\u00G0"', 1],
      ['"a\u0001"', 2],
      ['"a\u007f"', -1],
      ['{"a":1}}', 7],
      ['{"a":1] ', 6],
      ['[}', 1],
      ['{]', 1],
      ['{"a"', 4],
      ['{"a" ', 5],
      ['{"a":', 5],
      ['[1,2', 4],
      ['\uFEFF[]', 0],
      ['[1]\n x', 5],
    ];
    expect(cases.map(([text]) => [text, locateJsonError(text)])).toEqual(cases);
  });

  it('reads nesting of any depth without recursion', () => {
    expect(locateJsonError('['.repeat(100_000))).toBe(100_000);
    expect(locateJsonError(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toBe(-1);
    expect(locateJsonError(`${'{"a":'.repeat(100_000)}1${'}'.repeat(99_999)}]`)).toBe(600_000);
  });

  it('agrees with JSON.parse on what is valid, for generated JSON and mutations of it', () => {
    const insertion = fc.constantFrom('', ',', ']', '}', '"', '\\', ':', 'x', '\u0001', ' ');
    const mutated = fc.tuple(fc.json(), fc.nat(), insertion).map(([text, at, insert]) => {
      const cut = text.length === 0 ? 0 : at % (text.length + 1);
      return text.slice(0, cut) + insert + text.slice(cut);
    });
    fc.assert(
      fc.property(fc.oneof(fc.json(), mutated), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        const offset = locateJsonError(text);
        expect(offset === -1).toBe(valid);
        if (!valid) expect(offset).toBeLessThanOrEqual(text.length);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('jsonSyntaxWords', () => {
  it('says what is wrong and where: the character on one line, line and column on several', () => {
    expect(jsonSyntaxWords('{"a" 1}')).toBe("unexpected '1' at character 6");
    expect(jsonSyntaxWords('{\n  "a": 1,\n  "b": nope\n}')).toBe("unexpected 'n' at line 3, column 8");
    expect(jsonSyntaxWords('"a\u0001"')).toBe('unexpected U+0001 at character 3');
    expect(jsonSyntaxWords('[1,2\n')).toBe('it ends before the JSON is complete');
    expect(jsonSyntaxWords(' \n')).toBe('it is empty');
    expect(jsonFault('[1]')).toEqual({ at: -1, words: 'it is nested too deeply or too large to read' });
  });
});

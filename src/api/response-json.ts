/**
 * JSON from the server, parsed within bounds: nesting deeper than MAX_JSON_DEPTH is refused by a linear scan before
 * JSON.parse, so neither the parser nor zod nor any flattener downstream can recurse into a stack overflow.
 */
import { MAX_JSON_DEPTH } from './constants.js';

export type ParsedJson = { ok: true; value: unknown } | { ok: false; why: 'invalid' | 'too deep' | 'empty' };

/** The deepest nesting of `[`/`{` outside strings, stopping early once it passes `limit`. Linear, no recursion. */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/** Parses a response body: `too deep` past MAX_JSON_DEPTH, `empty` for a blank body, `invalid` otherwise. */
export function parseResponseJson(text: string): ParsedJson {
  if (text.trim() === '') return { ok: false, why: 'empty' };
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) return { ok: false, why: 'too deep' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, why: 'invalid' };
  }
}

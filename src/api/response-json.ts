/**
 * JSON from the server, parsed within bounds: nesting deeper than MAX_JSON_DEPTH, or more objects and arrays than
 * MAX_JSON_CONTAINERS, is refused by a linear scan before JSON.parse, so neither the parser nor zod nor any flattener
 * downstream can recurse into a stack overflow, nor fill memory with millions of `{}`. An integer past 2^53 keeps its
 * digits (lib/exact-json.ts), so a result prints as the service wrote it.
 */
import { parseJsonExact } from '../lib/exact-json.js';
import { MAX_JSON_CONTAINERS, MAX_JSON_DEPTH } from './constants.js';

/** Why a text is not JSON taskctl reads: not JSON, nested too deep, too many objects and arrays, or blank. */
export type JsonRefusal = 'invalid' | 'too deep' | 'too large' | 'empty';
export type ParsedJson = { ok: true; value: unknown } | { ok: false; why: JsonRefusal };

/** The deepest nesting of `[`/`{` outside strings, stopping early once it passes `limit`. Linear, no recursion. */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  return jsonBeyondBounds(text, limit, Number.POSITIVE_INFINITY) === 'too deep';
}

/**
 * `too deep` once the nesting of `[`/`{` outside strings passes `depthLimit`, `too large` once their count passes
 * `containerLimit`, else undefined. Linear, no recursion, stopping at the first bound passed.
 */
export function jsonBeyondBounds(
  text: string,
  depthLimit: number,
  containerLimit: number,
): 'too deep' | 'too large' | undefined {
  let depth = 0;
  let containers = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > depthLimit) return 'too deep';
      if (++containers > containerLimit) return 'too large';
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return undefined;
}

/**
 * Parses a response body: `too deep` past MAX_JSON_DEPTH, `too large` past MAX_JSON_CONTAINERS, `empty` for a blank
 * body, `invalid` otherwise.
 */
export function parseResponseJson(text: string): ParsedJson {
  if (text.trim() === '') return { ok: false, why: 'empty' };
  const beyond = jsonBeyondBounds(text, MAX_JSON_DEPTH, MAX_JSON_CONTAINERS);
  if (beyond !== undefined) return { ok: false, why: beyond };
  try {
    return { ok: true, value: parseJsonExact(text) };
  } catch {
    return { ok: false, why: 'invalid' };
  }
}

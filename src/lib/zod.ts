/**
 * zod as taskctl uses it: every schema module imports it from here (`import * as z from '../lib/zod.js'`), so these
 * settings hold before any schema is built.
 *
 * `jitless`: zod otherwise probes `new Function` when each object schema is built and, at its first parse, generates
 * and compiles a parser for its shape. Code made by `new Function` is in no code cache (boot/code-cache.ts), so every
 * run paid that again for parsing one or a few responses: ~1 ms of `balance`'s start-up on Node 22 and 24.
 * Results are the same either way; a 10,000-item task parses as fast without it once warm.
 *
 * `customError`: an issue's message in taskctl's words (`should be a number, not a string`), never the library's; a
 * schema's own message still wins. Callers put the field's path in front (`data.balance: ...`).
 */
import { config, type core } from 'zod';
import { typeWords } from './schema-words.js';

config({ jitless: true, customError: issueWords });

// Re-exported name by name (not as a namespace object) so that the bundle keeps only the parts of zod in use.
export * from 'zod';

/** A value a schema allows, for a message: JSON, cut short. */
function shown(value: unknown): string {
  const text =
    typeof value === 'bigint' ? String(value) : ((JSON.stringify(value) as string | undefined) ?? String(value));
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function issueWords(issue: core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return typeWords(issue.expected, issue.input);
    case 'too_small':
      return sizeWords(issue.origin, 'least', issue.minimum, issue.inclusive !== false);
    case 'too_big':
      return sizeWords(issue.origin, 'most', issue.maximum, issue.inclusive !== false);
    case 'invalid_value': {
      const allowed =
        issue.values.length === 1 ? shown(issue.values[0]) : `one of ${issue.values.map(shown).join(', ')}`;
      return issue.input === undefined ? `missing (should be ${allowed})` : `should be ${allowed}`;
    }
    case 'invalid_format':
      return formatWords(issue);
    case 'not_multiple_of':
      return `should be a multiple of ${shown(issue.divisor)}`;
    case 'unrecognized_keys':
      return `has ${issue.keys.length === 1 ? 'a field' : 'fields'} not allowed here: ${issue.keys.slice(0, 3).map(shown).join(', ')}${issue.keys.length > 3 ? ', …' : ''}`;
    case 'invalid_union':
      return 'matches none of the accepted forms';
    case 'invalid_key':
      return 'has a key that is not allowed';
    case 'invalid_element':
      return 'has an entry that is not allowed';
    default:
      return 'is not valid';
  }
}

/** `should be at least 1`, `should not be empty`, `should have at most 100 entries`. */
function sizeWords(origin: string, bound: 'least' | 'most', limit: unknown, inclusive: boolean): string {
  const n = shown(limit);
  if (origin === 'string' || origin === 'array' || origin === 'set') {
    if (bound === 'least' && Number(limit) === 1 && inclusive) return 'should not be empty';
    const unit = origin === 'string' ? 'characters' : 'entries';
    return `should have at ${bound} ${n} ${unit}`;
  }
  if (inclusive) return `should be at ${bound} ${n}`;
  return bound === 'least' ? `should be more than ${n}` : `should be less than ${n}`;
}

/** A string of the wrong form: a named format (`url`, `email`) by its name, the other checks by what they ask. */
function formatWords(issue: { format: string; prefix?: string; suffix?: string; includes?: string }): string {
  switch (issue.format) {
    case 'starts_with':
      return `should start with ${shown(issue.prefix)}`;
    case 'ends_with':
      return `should end with ${shown(issue.suffix)}`;
    case 'includes':
      return `should contain ${shown(issue.includes)}`;
    case 'lowercase':
    case 'uppercase':
      return `should be ${issue.format === 'lowercase' ? 'lower' : 'upper'} case`;
    case 'regex':
      return 'is not in the expected form';
    default:
      return `should be a valid ${issue.format}`;
  }
}

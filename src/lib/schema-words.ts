/** A value of the wrong type in taskctl's words, for zod's error map (lib/zod.ts) and a schema's own message. */

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
  date: 'a date',
};

/** What a JSON value is, in the same words (`a string`, `null`). */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return TYPE_WORDS[typeof value] ?? `a ${typeof value}`;
}

/** `should be a number, not a string`, or `missing (should be a number)`: `expected` is a zod type name. */
export function typeWords(expected: string, input: unknown): string {
  const words = TYPE_WORDS[expected] ?? expected;
  // A number JSON cannot hold (1e400 reads as Infinity): what it became, not a kind.
  if (typeof input === 'number' && !Number.isFinite(input)) return `should be a finite number, not ${String(input)}`;
  return input === undefined ? `missing (should be ${words})` : `should be ${words}, not ${kindOf(input)}`;
}

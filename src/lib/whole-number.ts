/**
 * A whole number as people type it (`--limit 50`, `--max-cost 0`, `config set confirm-above 5000`): digits only. What
 * Number() would also read (`1e3`, `0x10`, ` 5`, '' as 0, `1.0`) is no such number, nor one past 2^53 - 1, which a
 * JavaScript number would round. Undefined when `text` is not one.
 */
export function wholeNumber(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Why a value that is not a whole number (0 or more) was refused, in a flag's message and a setting's alike. */
export const NOT_WHOLE_NUMBER = 'expected a whole number (0 or more).';

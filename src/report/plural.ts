/** `1 item`, `2 items`, `0 failed tasks`: a count with its noun in the right number (regular plurals only). */
export function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

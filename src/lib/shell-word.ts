/** A value as one word a POSIX shell reads back as it is: plain when safe, else single-quoted. */
export function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

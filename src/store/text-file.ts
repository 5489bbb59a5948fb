/** A whole text file read as UTF-8 (`taskctl api --input FILE`, `-F key=@FILE`): the disk half of core/api-request.ts. */
import { readFile } from 'node:fs/promises';

/** The file's text; throws the fs error (its `code` names why), which the caller turns into its message. */
export function readTextFile(path: string): Promise<string> {
  return readFile(path, 'utf8');
}

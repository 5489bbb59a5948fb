/** `--api-key-file PATH` (`-` = stdin): the API key on the file's first line, trimmed. */
import { readFileSync } from 'node:fs';
import { text as readAll } from 'node:stream/consumers';
import { systemErrorWords, UsageError } from '../errors.js';

/** Standard input as the run has it (output/io.ts's InputStream). */
type Stdin = AsyncIterable<Buffer | string> & { readonly isTTY?: boolean | undefined };

export async function readKeyFile(path: string, stdin: Stdin): Promise<{ key: string; path: string }> {
  const text = path === '-' ? await readStdin(stdin) : readPath(path);
  const key = text.split(/\r?\n/, 1)[0]?.trim() ?? '';
  if (!key) throw new UsageError(`--api-key-file ${path} is empty`, 'Put the API key on the first line.');
  return { key, path };
}

function readStdin(stdin: Stdin): Promise<string> {
  if (stdin.isTTY)
    throw new UsageError(
      '--api-key-file - reads the key from stdin, but stdin is a terminal',
      'Pipe the key in: `pass show taskctl | taskctl --api-key-file - balance`.',
    );
  return readAll(stdin);
}

function readPath(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --api-key-file ${path}: ${systemErrorWords(error)}`);
  }
}

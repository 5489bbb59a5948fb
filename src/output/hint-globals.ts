/**
 * Every `taskctl <command>` a message on stderr names, followed verbatim, reaches the same service as the same account
 * as the run that printed it (docs/behaviour.md#for-people): the flags that chose them (`--profile`,
 * `--base-url`, `--api-key-file`) are put after `taskctl`, a key file by its absolute path so that the hint runs from
 * any directory. Messages are written with plain `taskctl <command>`; the printer passes each one through here.
 * Environment variables are not repeated: they persist in the user's shell. A relative TASKCTL_STATE_DIR persists too,
 * but names another directory elsewhere: a job id in a command is then given as its journal's absolute path.
 */
import { resolve } from 'node:path';
import { shellWord } from '../lib/shell-word.js';

/** The flags of a run that say where it talks and as whom. */
export interface AccountFlags {
  profile?: string | undefined;
  baseUrl?: string | undefined;
  apiKeyFile?: string | undefined;
}

/**
 * The commands a hint may name that run as an account (or, `config`, a profile); `sandbox` and `completion` never do.
 * test/unit/output/hint-globals.test.ts holds this list to the command tree.
 */
export const ACCOUNT_COMMANDS = [
  'services',
  'balance',
  'list',
  'show',
  'create',
  'retry',
  'resume',
  'jobs',
  'diff',
  'wait',
  'watch',
  'api',
  'auth',
  'config',
  'webhook',
] as const;

/** Said once, after the first hint, when the key came from stdin: a hint cannot carry it. */
export const KEY_FROM_STDIN_NOTE =
  'The API key came from stdin (--api-key-file -): give it to that command the same way.';

/** A key file only this run can read: stdin, or a descriptor the shell opened for it (`<(pass show taskctl)`). */
const KEY_STREAM = /^(?:-|\/dev\/stdin|\/dev\/fd\/\d+|\/proc\/(?:self|\d+)\/fd\/\d+)$/;

/** The note for a key a hint cannot carry (KEY_STREAM), said once after the first hint that needs the key. */
function keyStreamNote(file: string): string {
  if (file === '-') return KEY_FROM_STDIN_NOTE;
  return `The API key came from ${file}, which only this run could read (a <(…) of the shell): give it to that command the same way.`;
}

const FLAG_NAMES = ['profile', 'base-url', 'api-key-file'] as const;
type FlagName = (typeof FLAG_NAMES)[number];

/** `taskctl`, then a command of the list, maybe after account flags of its own (`taskctl --profile NAME auth login`). */
const HINT = new RegExp(
  String.raw`(?<![\w/.-])taskctl (?=(?:--(?:${FLAG_NAMES.join('|')})[= ]\S+ )*(?:${ACCOUNT_COMMANDS.join('|')})(?![\w-]))`,
  'g',
);
/** The account flag `name` named in a command. */
const accountFlag = (name: FlagName) => new RegExp(String.raw` --${name}(?:=| |$)`);

/** Every command a message may name: those run as an account, and `sandbox` and `completion`. */
export const COMMANDS: readonly string[] = [...ACCOUNT_COMMANDS, 'sandbox', 'completion'];

/** Where a command named in a message ends: a closing backtick, the next command, a bracket, a clause, a sentence. */
const END_OF_COMMAND = /[\x60;|&\n()]|, |\.(?: |$)/;

/**
 * How long the command that starts `rest` is (from `taskctl` to the end of its last word). A quoted word, `$(seq A B)`
 * and `<(cmd)` are words of it, whatever they hold. The one reading of a command's extent: the account flags added
 * to it here, and the wrapping that never breaks it (output/width.ts).
 */
export function commandLength(rest: string): number {
  const masked = rest.replace(/'[^']*'|[$<]\([^()]*\)/g, (word) => '_'.repeat(word.length));
  const end = masked.search(END_OF_COMMAND);
  return end < 0 ? rest.length : end;
}

/** A job id as a hint names it (store/job-files.ts `JOB_ID`), a word of its own (a sentence's full stop may follow). */
const JOB_WORD = /(?<![\w/.-])j-[0-9a-z]{4,24}(?![\w/-])(?!\.\w)/g;

/**
 * The rewrite of a run's messages, or undefined when it has nothing to change. `jobFile`, given when the state
 * directory came from a relative TASKCTL_STATE_DIR (another directory would find another one): the journal of a job
 * id, which a command then names instead of the id, so that it runs from anywhere (docs/behaviour.md#config-file).
 */
export function hintGlobals(
  flags: AccountFlags,
  jobFile?: (id: string) => string | undefined,
): ((text: string) => string) | undefined {
  const keyFromStream = flags.apiKeyFile !== undefined && KEY_STREAM.test(flags.apiKeyFile);
  const given: Array<[FlagName, string]> = [];
  if (flags.profile !== undefined) given.push(['profile', flags.profile]);
  if (flags.baseUrl !== undefined) given.push(['base-url', flags.baseUrl]);
  // A relative key file names another file from another directory: the hint names it by its absolute path.
  if (flags.apiKeyFile !== undefined && !keyFromStream) given.push(['api-key-file', resolve(flags.apiKeyFile)]);
  if (given.length === 0 && !keyFromStream && jobFile === undefined) return undefined;
  let noted = false;
  return (original) => {
    const text = jobFile ? namedByFile(original, jobFile) : original;
    if (given.length === 0 && !keyFromStream) return text;
    const seen = { hint: false };
    const rewritten = text.replace(HINT, (match: string, at: number) => {
      // Help is the same for every account: left as written. A flag the command names itself (`taskctl --profile
      // staging auth login`, `taskctl auth login --base-url URL`) is chosen on purpose and stays; the run's others
      // are added, so that `auth login --base-url URL` still logs in to the run's profile.
      const command = text.slice(at, at + commandLength(text.slice(at)));
      if (/ --help(?: |$)/.test(command)) return match;
      const added = given.filter(([name]) => !accountFlag(name).test(command));
      // A key from stdin or <(…) cannot be added: the note after the message says so, unless the command names its own
      // or needs none (`jobs` reads this machine's journals only).
      const name = /^taskctl (?:--\S+[= ]\S+ )*(\S+)/.exec(command)?.[1];
      if (name !== 'jobs' && !accountFlag('api-key-file').test(command)) seen.hint = true;
      return `taskctl ${added.map(([name, value]) => `--${name} ${shellWord(value)} `).join('')}`;
    });
    if (!seen.hint || !keyFromStream || noted) return rewritten;
    noted = true;
    return `${rewritten}\n${keyStreamNote(flags.apiKeyFile ?? '-')}`;
  };
}

/** Each job id in a command `text` names given as its journal's path (an id `jobFile` does not know stays). */
function namedByFile(text: string, jobFile: (id: string) => string | undefined): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(HINT)) {
    if (match.index < last) continue;
    const command = text.slice(match.index, match.index + commandLength(text.slice(match.index)));
    const named = command.replace(JOB_WORD, (id) => {
      const file = jobFile(id);
      return file === undefined ? id : shellWord(file);
    });
    out += text.slice(last, match.index) + named;
    last = match.index + command.length;
  }
  return out + text.slice(last);
}

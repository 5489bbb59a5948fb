/**
 * A job is read and continued only as the account that created it: its record keeps the base URL and a hash of URL
 * and key (`accountKey`). Another base URL is another service. The same base URL with another key (a key rotated) is
 * the job's account only when proved: a task the job created, read with the new key, is the chunk's own (its items
 * compared), and the pair is then remembered in the state directory (store/account-aliases.ts), so later commands
 * need no read. When the account is not the job's, what differs is named and, when a profile on this machine holds
 * the job's account, the way back is that profile (docs/behaviour.md#resume).
 */
import type { ApiClient } from '../../api/client.js';
import type { Task } from '../../api/schemas.js';
import { normaliseBaseUrl } from '../../api/base-url.js';
import { AuthError, CliError, InterruptedError, NotFoundError, UsageError } from '../../errors.js';
import { listedTargets } from '../../lib/task-state.js';
import { accountKey } from '../../store/cache.js';
import { accountsOf, addAlias, aliasesPath, readAliases, type AccountAlias } from '../../store/account-aliases.js';
import { stateDirectory } from '../../store/state-dir.js';
import { shellWord } from '../../lib/shell-word.js';
import type { Output, Runtime, Store } from '../capabilities.js';
import type { JobState } from '../submit/journal-records.js';
import { chunkTaskProblem, jobChunks, type CreatedChunk } from './job-chunks.js';

interface AccountMismatch {
  /** What differs, with the why when a proof failed: `the base URL (NOW; the job used THEN) differs`. */
  what: string;
  /** The base URL differs (another service), not only the key. */
  otherService: boolean;
  /** The way back: the job's profile when one holds its account, else the job's base URL or its key. */
  hint: string;
  /** The profile on this machine that holds the job's account, when one does. */
  profile?: string;
}

/** Tasks read at most to prove a key the job's account: the first may be gone (deleted), not all of them. */
const PROOF_READS = 3;

type AccountContext = Pick<Store, 'cache' | 'config'> & Pick<Runtime, 'env' | 'clock'> & Pick<Output, 'printer'>;

/**
 * The one refusal of a job read or continued as another account (exit 2), whatever the command: what differs, that
 * nothing was sent (only for a command that sends, `command` given: one that reads never could), and the way back
 * (the job's profile when one on this machine holds its account). `name` and `command` as for `jobAccountMismatch`.
 */
export async function requireJobAccount(
  ctx: AccountContext,
  api: Pick<ApiClient, 'baseUrl' | 'getTask'>,
  state: JobState,
  name: string,
  command?: string,
): Promise<void> {
  const other = await jobAccountMismatch(ctx, api, state, name, command);
  if (other === undefined) return;
  throw new UsageError(
    `job ${name} belongs to another ${other.otherService ? 'service' : 'account'}: ${other.what}${command === undefined ? '' : '; nothing was sent'}`,
    other.hint,
  );
}

/**
 * What differs between the run's account and the job's, or undefined when they are the same (the same key, or a key
 * proved to be the job's account, now or before). `name`: the job in messages (its id or file). `command` (`resume
 * ID`): the hint is that command run as the job's profile; without it, the flag to add. Sends nothing: the proof is
 * one GET. A read that fails for another reason than "not found" proves nothing either way: its own exit code (8 for
 * an outage, 4 for a key refused), never a guess.
 */
async function jobAccountMismatch(
  ctx: AccountContext,
  api: Pick<ApiClient, 'baseUrl' | 'getTask'>,
  state: JobState,
  name: string,
  command?: string,
): Promise<AccountMismatch | undefined> {
  const { job } = state;
  const account = ctx.cache.account ?? '';
  if (api.baseUrl !== job.base_url) {
    const what = `the base URL (${api.baseUrl}; the job used ${job.base_url}) differs`;
    return mismatch(ctx, job, { what, otherService: true }, command);
  }
  if (account === job.account) return undefined;
  const stateDir = stateDirectory(ctx.env);
  if (accountsOf(readAliases(stateDir), account).has(job.account)) return undefined;
  const candidates = jobChunks(state).filter((c): c is CreatedChunk => c.task !== undefined && c.digest !== undefined);
  if (candidates.length === 0) return unproved(ctx, state, command);
  const gone: number[] = [];
  let unlisted: number | undefined;
  for (const chunk of candidates.slice(0, PROOF_READS)) {
    const task = await readForProof(api, chunk, name);
    if (task === undefined) {
      gone.push(chunk.task); // another account's key, or this task deleted: another may still tell
      continue;
    }
    const problem = chunkTaskProblem(job, chunk, task);
    if (problem !== undefined) {
      const what = `the API key differs, and task ${chunk.task} read with it is not the job's (${problem.wrong})`;
      return mismatch(ctx, job, { what, otherService: false }, command);
    }
    if (listedTargets(task) === undefined) {
      unlisted ??= chunk.task;
      continue;
    }
    remember(ctx, stateDir, { account, same_as: job.account, job: job.id ?? null, task: chunk.task }, name);
    return undefined;
  }
  const why =
    gone.length > 0
      ? `the job's ${gone.length === 1 ? 'task' : 'tasks'} ${listed(gone)} ${gone.length === 1 ? 'is' : 'are'} not found with it (a key of another account, or ${gone.length === 1 ? 'the task is' : 'the tasks are'} gone)`
      : `task ${unlisted ?? ''} read with it does not list its items, so they cannot be compared`;
  return mismatch(ctx, job, { what: `the API key differs, and ${why}`, otherService: false }, command);
}

/** `1`, `1 and 2`, `1, 2 and 3`. */
function listed(ids: readonly number[]): string {
  return ids.length === 1 ? String(ids[0]) : `${ids.slice(0, -1).join(', ')} and ${String(ids.at(-1))}`;
}

/** The pair proved, remembered for later commands (docs/behaviour.md#a-rotated-api-key), and said once. */
function remember(ctx: AccountContext, stateDir: string, pair: Omit<AccountAlias, 'at'>, name: string): void {
  let kept = `remembered in ${aliasesPath(stateDir)}`;
  try {
    addAlias(stateDir, { ...pair, at: new Date(ctx.clock.now()).toISOString() });
  } catch {
    kept = 'not remembered: the state directory cannot be written, so the next command reads it again';
  }
  ctx.printer.info(
    `job ${pair.job ?? name}: this API key was matched to the job's account through task ${pair.task}, read with it; ${kept}`,
  );
}

/** The task read with the run's key; undefined when the service says it is not there (404). */
async function readForProof(
  api: Pick<ApiClient, 'getTask'>,
  chunk: CreatedChunk,
  name: string,
): Promise<Task | undefined> {
  try {
    return await api.getTask(chunk.task);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    if (!(error instanceof CliError) || error instanceof InterruptedError) throw error;
    throw new CliError(
      `cannot tell whether this API key is the account of job ${name} (chunk ${chunk.chunk}'s task read with it): ${error.message}`,
      error.exitCode,
      error instanceof AuthError
        ? error.hint
        : "Nothing was sent. Try again when the service answers: the task read decides whether the key is the job's account.",
    );
  }
}

/** A job with no task whose items can be compared: nothing shows that this key is its account. */
async function unproved(ctx: AccountContext, state: JobState, command: string | undefined): Promise<AccountMismatch> {
  const chunks = [...state.chunks.values()];
  const created = chunks.some((chunk) => chunk.task !== undefined);
  const what = created
    ? "the API key differs, and no task of the job can show that it is the same account (its journal, of an earlier version, keeps no chunk's items digest)"
    : 'the API key differs, and the job has no task yet that could show that it is the same account';
  const found = await mismatch(ctx, state.job, { what, otherService: false }, command);
  if (created || found.profile !== undefined) return found;
  // A chunk sent and unsettled may have made a task in the job's account: only that account's key can look for it,
  // and sending it again under another could pay twice. With none, nothing of the job was paid for under any key; it is
  // still not continued under this one: its tasks would then be this key's, and read as proof of the job's account.
  const inDoubt = chunks.some((chunk) => chunk.send !== undefined && chunk.task === undefined);
  const hint = inDoubt
    ? 'A chunk of it was sent and its outcome is unknown: only the key the job was created with can look for its task (--profile, --api-key-file or TASKCTL_API_KEY).'
    : 'Nothing of it was created: run the create again with this key, as a new job (with --journal, a new path).';
  return { ...found, hint };
}

async function mismatch(
  ctx: Pick<Store, 'config'> & Pick<Runtime, 'env'>,
  job: { base_url: string; account: string },
  found: { what: string; otherService: boolean },
  command: string | undefined,
): Promise<AccountMismatch> {
  const { what, otherService } = found;
  const profile = await profileOf(ctx, job.account);
  if (profile === undefined) {
    const hint = otherService
      ? `Run it against the job's service, with the key it was created with: --base-url ${shellWord(job.base_url)}.`
      : 'Run it with the API key the job was created with (--profile, --api-key-file or TASKCTL_API_KEY).';
    return { what, otherService, hint };
  }
  // The environment comes before a profile (flag > environment > profile): a variable set would still win.
  const set = ['TASKCTL_BASE_URL', 'TASKCTL_API_KEY'].filter((name) => ctx.env[name] !== undefined);
  const unset =
    set.length === 0
      ? ''
      : ` with ${set.join(' and ')} unset (${set.length === 1 ? 'it comes' : 'they come'} before a profile)`;
  const flag = `--profile ${shellWord(profile)}`;
  const way = command === undefined ? `add ${flag}` : `taskctl ${flag} ${command}`;
  return { what, otherService, profile, hint: `The job was created as profile "${profile}": ${way}${unset}.` };
}

/** The profile on this machine whose base URL and key are the job's account, if one is. */
async function profileOf(ctx: Pick<Store, 'config'>, account: string): Promise<string | undefined> {
  let config;
  try {
    config = await ctx.config();
  } catch {
    return undefined; // a config file that cannot be read names no profile; the message stands without one
  }
  return config.profileNames().find((name) => {
    const profile = config.profile(name);
    const url = profile['base-url'];
    const key = profile['api-key'];
    if (url === undefined || key === undefined) return false;
    try {
      return accountKey(normaliseBaseUrl(url), key) === account;
    } catch {
      return false; // a base URL the run would refuse
    }
  });
}

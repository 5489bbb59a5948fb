/**
 * A job is read and continued only as the account that created it: its record keeps the base URL and a hash of URL
 * and key (`accountKey`). When the run's differ, what differs is named and, when a profile on this machine holds the
 * job's account, the way back is that profile (docs/behaviour.md#resume).
 */
import { normaliseBaseUrl } from '../../api/base-url.js';
import { accountKey } from '../../store/cache.js';
import { shellWord } from '../../lib/shell-word.js';
import type { Runtime, Store } from '../capabilities.js';

export interface AccountMismatch {
  /** `the base URL (NOW; the job used THEN)` or `the account (API key)`. */
  what: string;
  /** The base URL differs (another service), not only the key. */
  otherService: boolean;
  /** The way back: the job's profile when one holds its account, else the job's base URL or its key. */
  hint: string;
}

/**
 * What differs between the run's account and the job's, or undefined when they are the same. `command` (`resume ID`):
 * the hint is that command run as the job's profile; without it, the flag to add.
 */
export async function jobAccountMismatch(
  ctx: Pick<Store, 'cache' | 'config'> & Pick<Runtime, 'env'>,
  job: { base_url: string; account: string },
  baseUrl: string,
  command?: string,
): Promise<AccountMismatch | undefined> {
  const otherService = baseUrl !== job.base_url;
  if (!otherService && (ctx.cache.account ?? '') === job.account) return undefined;
  const what = otherService ? `the base URL (${baseUrl}; the job used ${job.base_url})` : 'the account (API key)';
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
  return { what, otherService, hint: `The job was created as profile "${profile}": ${way}${unset}.` };
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

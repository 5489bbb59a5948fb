/**
 * The cache directory (completion data, prices, Node's compile cache): TASKCTL_CACHE_DIR, else `$XDG_CACHE_HOME/taskctl`,
 * else `~/.cache/taskctl`. No dependencies: src/boot.ts needs it before anything else loads.
 */
import { homedir, tmpdir, userInfo } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * The user's home directory as an absolute path: $HOME when it is one, else the account's (an empty or relative HOME
 * would put the config and the ledger of creates in whatever directory a command runs in); undefined if neither is.
 * `home` is asked only here, when no variable named the directory: with no HOME and a uid the system has no account
 * for (a container run as an arbitrary user), Node's homedir() and userInfo() throw, which means no home.
 */
export function userHome(home: () => string = homedir): string | undefined {
  const given = orUndefined(home);
  if (given !== undefined && isAbsolute(given)) return given;
  const account = orUndefined(() => userInfo().homedir);
  return account !== undefined && isAbsolute(account) ? account : undefined;
}

function orUndefined(read: () => string): string | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** An XDG base directory variable, used only when absolute: the XDG Base Directory Specification says to ignore a relative one. */
export function xdgHome(value: string | undefined): string | undefined {
  return value !== undefined && isAbsolute(value) ? value : undefined;
}

/**
 * A directory a TASKCTL_*_DIR variable names, as an absolute path: a relative one is taken from the directory taskctl
 * runs in, so that every path it records or prints (a hint's list of ids, a journal's place) names the same file from
 * any other directory. Undefined when the variable is unset or empty.
 */
export function variableDirectory(value: string | undefined): string | undefined {
  return value ? resolve(value) : undefined;
}

export function cacheDirectory(
  env: Readonly<Record<string, string | undefined>>,
  home: () => string = homedir,
): string {
  const named = variableDirectory(env.TASKCTL_CACHE_DIR);
  if (named) return named;
  const xdg = xdgHome(env.XDG_CACHE_HOME);
  if (xdg) return join(xdg, 'taskctl');
  const user = userHome(home);
  // No home at all (a stripped-down container): a per-user directory under the temp dir, never the working directory.
  return user ? join(user, '.cache', 'taskctl') : join(tmpdir(), `taskctl-cache-${process.getuid?.() ?? 'user'}`);
}

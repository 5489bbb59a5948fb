/**
 * taskctl's state directory (the journals of jobs and their locks): TASKCTL_STATE_DIR (made absolute), else `$XDG_STATE_HOME/taskctl`,
 * else the platform's usual place (`~/.local/state/taskctl`; `%LOCALAPPDATA%\taskctl\state` on Windows). Private:
 * the directory is 0700 and every file in it 0600 (docs/behaviour.md#jobs).
 */
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { userHome, variableDirectory, xdgHome } from './cache-dir.js';
import { describeDirectoryProblem, makeDirectory } from './make-dir.js';

export function stateDirectory(
  env: Readonly<Record<string, string | undefined>>,
  home: () => string = homedir,
): string {
  const named = variableDirectory(env.TASKCTL_STATE_DIR);
  if (named) return named;
  const xdg = xdgHome(env.XDG_STATE_HOME);
  if (xdg) return join(xdg, 'taskctl');
  if (process.platform === 'win32' && env.LOCALAPPDATA && isAbsolute(env.LOCALAPPDATA))
    return join(env.LOCALAPPDATA, 'taskctl', 'state');
  const user = userHome(home);
  return user
    ? join(user, '.local', 'state', 'taskctl')
    : join(tmpdir(), `taskctl-state-${process.getuid?.() ?? 'user'}`);
}

/** A state directory that cannot be made: its message is the problem in plain words (the component, what is wrong). */
export class StateDirectoryError extends Error {}

/**
 * Every directory of the state directory is made here (private, parents included) by the one guarded walk
 * (make-dir.ts: never Node's recursive mkdir, which can spin forever); throws StateDirectoryError.
 */
export function makeStateDirectory(path: string): void {
  const problem = makeDirectory(path, 0o700);
  if (problem) throw new StateDirectoryError(describeDirectoryProblem(problem));
}

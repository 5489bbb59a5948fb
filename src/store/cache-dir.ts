/**
 * The cache directory (completion data, prices, Node's compile cache): TASKCTL_CACHE_DIR, else `$XDG_CACHE_HOME/taskctl`,
 * else `~/.cache/taskctl`. No dependencies: src/boot.ts needs it before anything else loads.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export function cacheDirectory(env: Readonly<Record<string, string | undefined>>, home: string = homedir()): string {
  if (env.TASKCTL_CACHE_DIR) return env.TASKCTL_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'taskctl');
  return join(home, '.cache', 'taskctl');
}

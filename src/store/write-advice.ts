/**
 * What to do when taskctl cannot write one of its own files or directories (config, caches, state, journals, spools),
 * chosen by the cause: a full disk asks for space, a permission for the permissions, a read-only file system for
 * another place. The one wording every store error's next step takes (docs/behaviour.md#files).
 *
 * No imports: src/boot.ts uses it before the bundle loads.
 */

/** Why a write failed, as far as the advice goes. */
export type WriteCause = 'full' | 'permission' | 'read-only' | 'other';

const CAUSES: Readonly<Record<string, WriteCause>> = {
  ENOSPC: 'full',
  EDQUOT: 'full',
  EACCES: 'permission',
  EPERM: 'permission',
  EROFS: 'read-only',
};

/**
 * The cause of `error`: an Error with a `code` (its `cause` chain searched), an object with a `code` (a directory
 * problem), or a code itself.
 */
export function writeCause(error: unknown): WriteCause {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && current !== undefined; depth++) {
    const code = typeof current === 'string' ? current : (current as { code?: unknown }).code;
    if (typeof code === 'string' && Object.hasOwn(CAUSES, code)) return CAUSES[code] ?? 'other';
    if (typeof current !== 'object') break;
    current = (current as { cause?: unknown }).cause;
  }
  return 'other';
}

/**
 * The next step after a failed write, one sentence: `elsewhere` is how to use another place (`set TASKCTL_CONFIG_DIR
 * to another directory`), `otherwise` the advice for any other cause (default: the disk and the permissions).
 */
export function writeAdvice(error: unknown, elsewhere: string, otherwise?: string): string {
  switch (writeCause(error)) {
    case 'full':
      return `Free space there, or ${elsewhere}.`;
    case 'permission':
      return `Check the directory permissions, or ${elsewhere}.`;
    case 'read-only':
      return `Its file system is read-only: ${elsewhere}.`;
    default:
      return otherwise ?? `Check the disk and the directory permissions, or ${elsewhere}.`;
  }
}

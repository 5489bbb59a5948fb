/** A file system error in plain words, for a one-line message (no errno names shown to people). */
const REASONS: Readonly<Record<string, string>> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  EIO: 'an input/output error',
  EFBIG: 'the file is too large',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of its path is not a directory',
  EEXIST: 'a part of its path is a file, not a directory',
  ENOENT: 'its directory does not exist',
  ELOOP: 'it is a symbolic link',
};

export function fsReason(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && Object.hasOwn(REASONS, code)) return REASONS[code] ?? code;
  return error instanceof Error ? error.message : String(error);
}

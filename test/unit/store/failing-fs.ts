/**
 * A file-system failure played without a module mock (the `shared` project imports src once per worker): node:fs's
 * exports are swapped and the ES module's bindings synced to them (`syncBuiltinESMExports`) for one synchronous call
 * only, then put back. The store's work is synchronous, so what it does inside that call sees the failure.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { constants } from 'node:fs';

type Fs = typeof import('node:fs');
const fs = createRequire(import.meta.url)('node:fs') as Record<string, unknown>;

/** Decides, for a call of a `*Sync` function of node:fs, the error code it fails with (undefined: it runs). */
export type FsFailure = (name: string, args: readonly unknown[]) => string | undefined;

/** A system error as node:fs throws it: Node's own text, the code named in it (what people must never see). */
function systemError(code: string, name: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, ${name.replace(/Sync$/, '')}`), { code, syscall: name });
}

/** node:fs's `*Sync` functions fail as `failure` says from now on; the function returned puts the real ones back. */
function swapFs(failure: FsFailure): () => void {
  const real = new Map<string, unknown>();
  for (const [name, value] of Object.entries(fs)) {
    if (typeof value !== 'function' || !name.endsWith('Sync')) continue;
    real.set(name, value);
    fs[name] = (...args: unknown[]) => {
      const code = failure(name, args);
      if (code !== undefined) throw systemError(code, name);
      return (value as (...a: unknown[]) => unknown)(...args);
    };
  }
  syncBuiltinESMExports();
  return () => {
    for (const [name, value] of real) fs[name] = value;
    syncBuiltinESMExports();
  };
}

/** Runs `work` with node:fs failing as `failure` says; the real functions are back before it returns or throws. */
export function withFailingFs<T>(failure: FsFailure, work: () => T): T {
  const restore = swapFs(failure);
  try {
    return work();
  } finally {
    restore();
  }
}

/** Changing a file's mode fails with `code`: a read-only file system (EROFS), another user's file (EPERM). */
export const chmodFails =
  (code: string): FsFailure =>
  (name) =>
    name === 'fchmodSync' || name === 'chmodSync' ? code : undefined;

const WRITE_FLAGS = constants.O_WRONLY | constants.O_RDWR | constants.O_CREAT;
const WRITES = new Set<keyof Fs>(['mkdirSync', 'writeFileSync', 'linkSync', 'renameSync', 'unlinkSync', 'fchmodSync']);

/** A read-only file system: everything that would change it fails with EROFS; reads work. */
export const readOnlyFs: FsFailure = (name, args) => {
  if (WRITES.has(name as keyof Fs)) return 'EROFS';
  if (name !== 'openSync') return undefined;
  const flags = args[1];
  const writes = typeof flags === 'number' ? (flags & WRITE_FLAGS) !== 0 : typeof flags === 'string' && flags !== 'r';
  return writes ? 'EROFS' : undefined;
};

/**
 * `withFailingFs` for a command run in process (`work` awaits): node:fs fails as `failure` says until `work` settles.
 * Only for a failure scoped to the test's own paths (`fullDiskUnder`): whatever else runs meanwhile sees it too.
 */
export async function whileFailingFs<T>(failure: FsFailure, work: () => Promise<T>): Promise<T> {
  const restore = swapFs(failure);
  try {
    return await work();
  } finally {
    restore();
  }
}

/** Every write under `dir` fails with `code` (default ENOSPC, a full disk); reads, and writes elsewhere, work. */
export const writesFailUnder =
  (dir: string, code = 'ENOSPC'): FsFailure =>
  (name, args) =>
    typeof args[0] === 'string' && (args[0] === dir || args[0].startsWith(`${dir}/`)) && readOnlyFs(name, args)
      ? code
      : undefined;

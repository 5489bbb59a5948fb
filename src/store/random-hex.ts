/**
 * Random hex for the names and tokens of state files (a lock's owner token, temp and aside files, ledger entries):
 * unique, not secret. Taken from a pool the system's CSPRNG fills 4 KiB at a time, as Node's `randomUUID` does, instead
 * of a call into it for every 4 or 8 bytes (a create takes a dozen); node:crypto is loaded at the first call, not when
 * the module loads (every command loads this one: 3 ms at start-up).
 */
const POOL_BYTES = 4096;
let pool: Buffer | undefined;
let used = POOL_BYTES;

/** `bytes` random bytes (at most 4 KiB) as lower-case hex: `randomHex(4)` is 8 characters. */
export function randomHex(bytes: number): string {
  if (pool === undefined || used + bytes > POOL_BYTES) {
    pool = process.getBuiltinModule('node:crypto').randomBytes(POOL_BYTES);
    used = 0;
  }
  const hex = pool.toString('hex', used, used + bytes);
  used += bytes;
  return hex;
}

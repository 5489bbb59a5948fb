/**
 * A test's or group's name with the reason it is skipped, when it is: `npm test` then names each reason at the end
 * (test/setup/skip-reporter.ts) instead of a bare "10 skipped".
 */
export function skippedUnless(name: string, runs: unknown, reason: string): string {
  return runs ? name : `${name} [skipped: ${reason}]`;
}

/** The usual reasons, worded once. */
export const missing = (tool: string): string => `${tool} is not installed`;
export const AS_ROOT = 'running as root, which reads any file';

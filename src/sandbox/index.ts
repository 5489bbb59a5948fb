/**
 * The sandbox's public entry. Kept to types and a lazy import so that loading it costs nothing until a sandbox starts.
 */
export { SANDBOX_DEFAULTS } from './defaults.js';
export { DIALECTS, DIALECT_NAMES, type DialectName } from './dialect-names.js';

export type { RunningSandbox, SandboxOptions } from './types.js';
import type { RunningSandbox, SandboxOptions } from './types.js';

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const { startSandboxServer } = await import('./server.js');
  return startSandboxServer(options);
}

import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;

/** `taskctl/<version> node/<version>` (docs/behaviour.md#http). */
export function userAgent(nodeVersion: string = process.versions.node): string {
  return `taskctl/${VERSION} node/${nodeVersion}`;
}

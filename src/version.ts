import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;

/** `taskctl/<version> node/<version>` (DESIGN.md section 5). */
export function userAgent(nodeVersion: string = process.versions.node): string {
  return `taskctl/${VERSION} node/${nodeVersion}`;
}

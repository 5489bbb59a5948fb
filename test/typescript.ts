/**
 * The TypeScript compiler, loaded by `require`. Imported as an ES module, Node first compiles its 9 MB to tell whether
 * it is CommonJS, then scans it for named exports: about 0.4 s of CPU more in each vitest worker whose files use it.
 */
import { createRequire } from 'node:module';
import type TypeScript from 'typescript';

const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript;
export default ts;

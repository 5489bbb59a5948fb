/**
 * The entry of dist/plain.cjs: the CLI bundle for a plain command typed alone (src/boot/plain-command.ts), the same
 * main without main's commander path (scripts/bundling.ts, `plainOnly`), which such a run never takes.
 */
export { main } from './main.js';

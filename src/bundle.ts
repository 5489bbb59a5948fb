/**
 * The entry of dist/taskctl.cjs, the CLI bundle: what src/boot.ts runs and what the build and scripts call. Its
 * static imports are evaluated when the bundle loads, so they stay as small as main's.
 */
export { main } from './main.js';
export { renderHelpTexts } from './boot/render-help.js';

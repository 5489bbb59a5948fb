/**
 * zod as taskctl uses it: every schema module imports it from here (`import * as z from '../lib/zod.js'`), so this setting holds before any schema is built.
 *
 * `jitless`: zod otherwise probes `new Function` when each object schema is built and, at its first parse, generates
 * and compiles a parser for its shape. Code made by `new Function` is in no code cache (boot/code-cache.ts), so every
 * run paid that again for parsing one or a few responses: ~1 ms of `balance`'s start-up on Node 22 and 24.
 * Results are the same either way; a 10,000-item task parses as fast without it once warm.
 */
import { config } from 'zod';

config({ jitless: true });

// Re-exported name by name (not as a namespace object) so that the bundle keeps only the parts of zod in use.
export * from 'zod';

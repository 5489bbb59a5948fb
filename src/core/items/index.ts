// Items for `create`: read (args, files, stdin) → validate per service → dedupe → plan chunks.
// Pure logic, except that `readItems` opens the files it is given.
export { readItems } from './read.js';
export { NO_INPUT_HINT } from './messages.js';
export { formatFromPath } from './formats.js';
export { DEFAULT_LIMITS } from './types.js';
export type { ItemFormat, ItemSource, ReadItemsOptions, ReadItemsResult } from './types.js';
export { validateItems, formatInvalidReport, INVALID_SHOWN } from './validate.js';
export type { InvalidItem, NormalisedItems, ValidationResult } from './validate.js';
export { dedupeItems } from './dedupe.js';
export type { DedupeResult } from './dedupe.js';
export { planChunks, itemList, chunkCount } from './chunks.js';
export type { ItemList } from './chunks.js';
export { counted, formatCount } from './clean.js';
export { prepareItems } from './prepare.js';
export type { PrepareItemsOptions, PreparedItems } from './prepare.js';

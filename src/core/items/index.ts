// Items for `create`: read (args, files, stdin) → validate per service → dedupe → plan chunks.
// Pure logic, except that `readItems` opens the files it is given.
export { checkArguments, readItems } from './sources.js';
export { formatFromPath } from './formats.js';
export type { ItemFormat, ItemSource, ReadItemsOptions } from './types.js';
export { validateItems, formatInvalidReport, INVALID_SHOWN } from './validate.js';
export type { NormalisedItems } from './validate.js';
export { dedupeItems } from './dedupe.js';
export { planChunks, itemList } from './chunks.js';
export type { ItemList } from './chunks.js';
export { prepareItems } from './prepare.js';
export type { PreparedItems } from './prepare.js';

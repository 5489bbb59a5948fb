/**
 * The sandbox's dialects: variants docs/openapi.json documents and alternatives it leaves open (and four beyond it,
 * `BEYOND_CONTRACT`), each switched on by name
 * (`taskctl sandbox --dialect NAME`, `startSandbox({ dialects: [...] })`). No imports: `taskctl sandbox --help` lists
 * them without loading the sandbox.
 */
export const DIALECTS = {
  'balance-top-level':
    'GET /balance answers {success, balance, currency} without data (the documented top-level balance variant)',
  'error-string': 'errors are {success: false, error: "<code>", message} (the documented string-error variant)',
  'status-400':
    'validation_error, insufficient_balance and not_found answer HTTP 400 (the contract shows no status for them)',
  'created-200': 'POST /tasks answers 200 instead of 201',
  'reset-delta': 'X-RateLimit-Reset is the seconds left in the window, not an epoch time',
  'reset-ms': 'X-RateLimit-Reset is the epoch time in milliseconds, not seconds',
  'whole-seconds':
    'timestamps (created_at, started_at, completed_at, failed_at) have whole seconds, no fraction, as in the documented examples',
  'string-ids': 'task ids are numeric strings ("7")',
  'item-statuses':
    'items wait as queued and run as running; fail- items end error; skip- items end skipped, counted in neither completed_items nor failed_items',
  'task-statuses':
    'tasks are queued, then running; a taskfail- task ends cancelled; a task with an archive- item ends archived (with completed_at)',
  'data-shapes':
    'item data of other JSON shapes: nested objects (domain_check_availability), arrays (domain_whois_history, fanpage_extract_contact), strings (email_verify)',
  'extra-fields': 'unknown fields everywhere: envelopes, services, balance, tasks, items, meta, errors, webhook events',
  'no-items': 'GET /tasks/:id leaves out items',
  'bare-tasks':
    'task objects carry only the documented fields: no platform, completed_items, failed_items, started_at, failed_at or error_message',
  sparse: 'null fields are left out: completed_at while unfinished, data of unfinished items',
  'per-page-clamp': 'per_page over 100 is served as 100 instead of refused',
} as const;

export type DialectName = keyof typeof DIALECTS;

/**
 * Dialects that go beyond what docs/openapi.json allows (it types ids as integers, shows items in GET /tasks/{id}, a
 * data object per item, and null fields as null): a server the client tolerates, not one the document describes.
 */
const BEYOND_CONTRACT: ReadonlySet<DialectName> = new Set<DialectName>([
  'string-ids',
  'data-shapes',
  'no-items',
  'sparse',
]);

/** `documented` for a variant docs/openapi.json allows, `beyond the contract` for the rest (`taskctl sandbox --dialect list`). */
export function dialectScope(name: DialectName): string {
  return BEYOND_CONTRACT.has(name) ? 'beyond the contract' : 'documented';
}

export const DIALECT_NAMES = Object.keys(DIALECTS) as DialectName[];

export function isDialectName(name: string): name is DialectName {
  return Object.hasOwn(DIALECTS, name);
}

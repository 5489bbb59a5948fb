/** Injected failures (`POST /__sandbox/faults`) so the client's resend and reconciliation rules can be proven end to end. */
import * as z from '../lib/zod.js';

const FAULT_KINDS = ['status', 'delay', 'reset-before', 'reset-after', 'truncate', 'non-json'] as const;
type FaultKind = (typeof FAULT_KINDS)[number];

const API_PREFIX = '/api/v1';

const FaultRequestSchema = z
  .object({
    method: z
      .string()
      .regex(/^([A-Za-z]+|\*)$/, 'method must be an HTTP method or "*"')
      .default('*'),
    path: z.string().startsWith('/', 'path must start with "/"').default('/'),
    kind: z.enum(FAULT_KINDS),
    count: z.number().int().positive().max(1_000_000).default(1),
    status: z.number().int().min(100).max(599).optional(),
    delayMs: z.number().int().nonnegative().max(600_000).optional(),
  })
  .refine((f) => f.kind !== 'status' || f.status !== undefined, { message: 'kind "status" needs "status"' })
  .refine((f) => f.kind !== 'delay' || f.delayMs !== undefined, { message: 'kind "delay" needs "delayMs"' });

export interface Fault {
  id: number;
  method: string;
  /** Full request-path prefix (`/tasks` is stored as `/api/v1/tasks`). */
  path: string;
  kind: FaultKind;
  /** Matching requests still to be hit. */
  remaining: number;
  status?: number;
  delayMs?: number;
}

/** Parses an admin request body into a fault, or returns a message naming the problem. */
export function parseFault(body: unknown): { fault: Omit<Fault, 'id'> } | { error: string } {
  const parsed = FaultRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    return { error: `invalid fault: ${where}${issue?.message ?? 'invalid'}` };
  }
  const { method, path, kind, count, status, delayMs } = parsed.data;
  const fullPath = path.startsWith(API_PREFIX) ? path : API_PREFIX + (path === '/' ? '' : path);
  const fault: Omit<Fault, 'id'> = { method: method.toUpperCase(), path: fullPath, kind, remaining: count };
  if (status !== undefined) fault.status = status;
  if (delayMs !== undefined) fault.delayMs = delayMs;
  return { fault };
}

export class FaultInjector {
  private faults: Fault[] = [];
  private nextId = 1;

  add(fault: Omit<Fault, 'id'>): Fault {
    const stored = { ...fault, id: this.nextId++ };
    this.faults.push(stored);
    return { ...stored };
  }

  /** The first registered fault matching the request, with one use consumed. */
  take(method: string, path: string): Fault | undefined {
    if (this.faults.length === 0) return undefined;
    const index = this.faults.findIndex((f) => (f.method === '*' || f.method === method) && path.startsWith(f.path));
    const fault = this.faults[index];
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.faults.splice(index, 1);
    return { ...fault };
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.faults = [];
  }
}

/** A task object as the API sends it (no vitest, no harness: scripts import it too). */
export function task(id: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    service: 'domain_check_availability',
    status: 'completed',
    total_items: 1,
    cost: 1,
    created_at: '2025-01-15T12:00:00Z',
    completed_at: '2025-01-15T12:00:01Z',
    ...extra,
  };
}

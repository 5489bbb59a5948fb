/**
 * Durations as taskctl prints them (one module for every rendering of a length of time).
 * - `formatDuration`: messages and traces (`0.3s`, `1.5s`, `42s`, `1m30s`, `2h5m`);
 * - `clockTime`: a running clock in the live progress block (`0:07`, `12:34`, `1:02:03`), fixed-width per magnitude.
 */

/** `0.3s`, `1.5s` (one decimal under 10 s), `42s`, `1m30s`, `2h5m`. */
export function formatDuration(ms: number): string {
  const safe = Number.isFinite(ms) ? Math.max(0, ms) : 0;
  if (safe < 10_000) return `${Number((safe / 1000).toFixed(1))}s`;
  const totalSeconds = Math.round(safe / 1000);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  if (h) return `${h}h${m ? `${m}m` : ''}`;
  if (m) return `${m}m${s ? `${s}s` : ''}`;
  return `${s}s`;
}

/** 0:07, 12:34, 1:02:03. */
export function clockTime(ms: number): string {
  const total = Math.floor(Math.max(0, ms) / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** The dashboard's files, served by the sandbox itself (no CDN, no network): the page, its script, style and icon. */
import { errorReply } from '../http.js';
import type { Reply } from '../http.js';
import { ICON_SVG, PAGE_HTML } from './html.js';
import { PAGE_JS } from './script.js';
import { PAGE_CSS } from './style.js';

/** Where the page lives: the sandbox's root URL. */
const DASHBOARD_PATH = '/';

/** The page may load only its own files and talk only to its own origin; no other site may frame it. */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

const FILES = new Map<string, { body: string; contentType: string }>([
  [DASHBOARD_PATH, { body: PAGE_HTML, contentType: 'text/html; charset=utf-8' }],
  ['/dashboard/app.js', { body: PAGE_JS, contentType: 'text/javascript; charset=utf-8' }],
  ['/dashboard/app.css', { body: PAGE_CSS, contentType: 'text/css; charset=utf-8' }],
  ['/dashboard/icon.svg', { body: ICON_SVG, contentType: 'image/svg+xml' }],
]);

/** True for the paths the dashboard answers (the caller checks Host and the client's address first). */
export function isDashboardPath(path: string): boolean {
  return FILES.has(path);
}

/** The file at `path` for GET/HEAD, 405 for other methods; undefined for a path that is not the dashboard's. */
export function dashboardReply(method: string, path: string): Reply | undefined {
  const file = FILES.get(path);
  if (!file) return undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    return errorReply(405, 'method_not_allowed', `${method} is not allowed on ${path}; use GET`, {
      Allow: 'GET, HEAD',
    });
  }
  return { status: 200, body: file.body, contentType: file.contentType, headers: SECURITY_HEADERS };
}

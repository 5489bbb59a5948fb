/**
 * The service's contract, docs/openapi.json, served at `/openapi.json` so a person can point their own tools at the
 * sandbox (docs/sandbox.md#the-contract-openapijson). Bundled into dist/sandbox.cjs: the package ships no docs/.
 */
import contract from '../../docs/openapi.json' with { type: 'json' };
import { API_PREFIX } from './api-routes.js';
import { errorReply } from './http.js';
import type { Reply } from './http.js';

export const OPENAPI_PATH = '/openapi.json';

/**
 * The document with this sandbox first in `servers`, so a tool's requests come here. `host` is the request's `Host`,
 * already checked to be a loopback name with the sandbox's port (same-origin.ts).
 */
export function openApiReply(method: string, host: string): Reply {
  if (method !== 'GET' && method !== 'HEAD') {
    return errorReply(405, 'method_not_allowed', `${method} is not allowed on ${OPENAPI_PATH}; use GET`, {
      Allow: 'GET, HEAD',
    });
  }
  const here = {
    url: `http://${host}${API_PREFIX}`,
    description: 'This sandbox (its key: `taskctl sandbox` prints it).',
  };
  const body = JSON.stringify({ ...contract, servers: [here, ...contract.servers] });
  return { status: 200, body, headers: { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' } };
}

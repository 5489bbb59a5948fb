/** The connection pool: keep-alive, connect timeout, and the proxy rules (HTTPS_PROXY, NO_PROXY; docs/behaviour.md). */
import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import { isLoopbackHost } from './base-url.js';

export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

/** Proxy settings from the environment; lowercase names win over uppercase (curl's and undici's rule). */
export function proxyFromEnv(env: Record<string, string | undefined>): ProxySettings {
  const pick = (name: string): string | undefined => {
    const value = env[name] ?? env[name.toUpperCase()];
    return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
  };
  const out: ProxySettings = {};
  const httpProxy = pick('http_proxy');
  const httpsProxy = pick('https_proxy');
  const noProxy = pick('no_proxy');
  if (httpProxy !== undefined) out.httpProxy = httpProxy;
  if (httpsProxy !== undefined) out.httpsProxy = httpsProxy;
  if (noProxy !== undefined) out.noProxy = noProxy;
  return out;
}

/**
 * A keep-alive pool for `baseUrl` with the given connect timeout. With `HTTPS_PROXY`/`HTTP_PROXY` set it is undici's
 * EnvHttpProxyAgent (which honours `NO_PROXY`; `HTTP_PROXY` alone also covers https, as undici documents), except for
 * loopback hosts, which are never proxied (the same special case as Go's net/http).
 */
export function createDispatcher(
  baseUrl: string,
  env: Record<string, string | undefined>,
  connectTimeoutMs: number,
): Dispatcher {
  const agentOptions = { connect: { timeout: connectTimeoutMs } };
  const proxy = proxyFromEnv(env);
  const hasProxy = proxy.httpProxy !== undefined || proxy.httpsProxy !== undefined;
  if (!hasProxy || isLoopbackHost(new URL(baseUrl).hostname)) return new Agent(agentOptions);
  // Empty strings (not undefined) stop undici from reading process.env behind the injected env's back.
  return new EnvHttpProxyAgent({
    ...agentOptions,
    httpProxy: proxy.httpProxy ?? '',
    httpsProxy: proxy.httpsProxy ?? '',
    noProxy: proxy.noProxy ?? '',
  });
}

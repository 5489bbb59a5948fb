import { describe, expect, it } from 'vitest';
import { Agent, EnvHttpProxyAgent } from 'undici';
import { createDispatcher, proxyFromEnv } from '../../../src/api/dispatcher.js';

describe('proxy settings', () => {
  it('reads proxy variables in either case, lowercase first, ignoring blanks', () => {
    expect(
      proxyFromEnv({ HTTPS_PROXY: 'http://upper:3128', https_proxy: 'http://lower:3128', NO_PROXY: 'internal' }),
    ).toEqual({
      httpsProxy: 'http://lower:3128',
      noProxy: 'internal',
    });
    expect(proxyFromEnv({ HTTP_PROXY: ' ', http_proxy: '' })).toEqual({});
  });

  it.each([{ HTTPS_PROXY: 'http://proxy:3128' }, { http_proxy: 'http://proxy:3128' }])(
    'uses EnvHttpProxyAgent when a proxy is set: %o',
    async (env) => {
      const dispatcher = createDispatcher('https://api.example.com/api/v1', env, 10_000);
      expect(dispatcher).toBeInstanceOf(EnvHttpProxyAgent);
      await dispatcher.close();
    },
  );

  it.each([
    'http://localhost:8787/api/v1',
    'http://127.0.0.1:8787/api/v1',
    'http://[::1]:8787/api/v1',
    'https://127.0.0.1/api/v1',
  ])('never proxies a loopback host: %s', async (baseUrl) => {
    const dispatcher = createDispatcher(
      baseUrl,
      { HTTPS_PROXY: 'http://proxy:3128', HTTP_PROXY: 'http://proxy:3128' },
      10_000,
    );
    expect(dispatcher).toBeInstanceOf(Agent);
    expect(dispatcher).not.toBeInstanceOf(EnvHttpProxyAgent);
    await dispatcher.close();
  });

  it('uses a plain keep-alive Agent without proxy variables', async () => {
    const dispatcher = createDispatcher('https://api.example.com/api/v1', { NO_PROXY: '*' }, 10_000);
    expect(dispatcher).toBeInstanceOf(Agent);
    expect(dispatcher).not.toBeInstanceOf(EnvHttpProxyAgent);
    await dispatcher.close();
  });
});

/** `taskctl sandbox`: the local service started (sandbox/launch.ts), its exports printed, stopped on Ctrl-C. */
import type { Output, Process } from './capabilities.js';
import { dialectScope, DIALECTS, type DialectName } from '../sandbox/dialect-names.js';
import type { ResolvedOptions } from '../sandbox/options.js';
import { shellWord } from '../lib/shell-word.js';

/**
 * The flags, each defaulted by commander from SANDBOX_DEFAULTS: the sandbox's own options under their flag names
 * (commander names each after its flag: `--rate-window` is `rateWindow`, in milliseconds).
 */
export type SandboxCommandOptions = Pick<
  ResolvedOptions,
  'port' | 'host' | 'apiKey' | 'balance' | 'itemMs' | 'rateLimit' | 'maxItems' | 'webhookTimeScale' | 'seed'
> & { rateWindow: number; webhookUrl?: string; state?: string; dialect: string[]; clockSkew?: number };

export async function runSandbox(ctx: Output & Process, options: SandboxCommandOptions): Promise<void> {
  if (options.dialect.includes('list')) {
    await ctx.printer.list(
      Object.entries(DIALECTS).map(([name, description]) => ({
        name,
        scope: dialectScope(name as DialectName),
        description,
      })),
      [
        { header: 'name', value: (row) => row.name },
        { header: 'scope', value: (row) => row.scope },
        { header: 'description', value: (row) => row.description },
      ],
    );
    ctx.printer.info(
      'also: --clock-skew DURATION (e.g. 3s, -3s) runs the sandbox clock ahead of or behind this machine',
    );
    return;
  }
  const { launchSandbox } = await import('../sandbox/launch.js');
  const sandbox = await launchSandbox({
    port: options.port,
    host: options.host,
    apiKey: options.apiKey,
    balance: options.balance,
    itemMs: options.itemMs,
    rateLimit: options.rateLimit,
    rateWindowMs: options.rateWindow,
    maxItems: options.maxItems,
    webhookUrl: options.webhookUrl,
    webhookTimeScale: options.webhookTimeScale,
    seed: options.seed,
    stateFile: options.state,
    dialects: options.dialect,
    ...(options.clockSkew === undefined ? {} : { clockSkewMs: options.clockSkew }),
    log: (line) => {
      ctx.printer.info(line);
    },
  });
  // Written past the redactor: the key is the sandbox's own (often the same string as a stored one, after the README's
  // `auth login`), and these lines exist to be pasted. Only these lines: logs and errors stay redacted.
  const format = ctx.printer.format;
  ctx.io.stdout.write(
    format === 'json' || format === 'ndjson'
      ? `${JSON.stringify({ url: sandbox.url, apiKey: sandbox.apiKey }, null, format === 'json' ? 2 : undefined)}\n`
      : `export TASKCTL_BASE_URL=${shellWord(sandbox.url)}\nexport TASKCTL_API_KEY=${shellWord(sandbox.apiKey)}\n`,
  );
  const variants =
    (options.dialect.length > 0 ? `, dialects: ${options.dialect.join(', ')}` : '') +
    (options.clockSkew ? `, clock skew ${options.clockSkew} ms` : '');
  ctx.printer.info(`sandbox listening on ${sandbox.url} (key ${sandbox.apiKey}${variants}); Ctrl-C to stop`);
  ctx.printer.info(`dashboard: ${sandbox.dashboard} (this machine only)`);
  ctx.printer.info(`contract: ${sandbox.origin}/openapi.json (OpenAPI 3.1, this machine only)`);
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) {
      resolve();
      return;
    }
    ctx.signal.addEventListener(
      'abort',
      () => {
        resolve();
      },
      { once: true },
    );
  });
  await sandbox.close();
  ctx.printer.info(options.state ? `sandbox stopped; state saved to ${options.state}` : 'sandbox stopped');
}

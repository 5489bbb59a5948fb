import type { Command } from 'commander';
import type { Context } from '../context.js';
import { examples, type RunAction } from './help-text.js';
import { SANDBOX_DEFAULTS } from '../sandbox/defaults.js';
import { DIALECTS } from '../sandbox/dialect-names.js';
import type { ResolvedOptions } from '../sandbox/options.js';
import { nonNegativeInt, port, positiveInt, positiveNumber } from './parsers.js';

/** The flags, each defaulted by commander from SANDBOX_DEFAULTS: the sandbox's own options under their flag names. */
export type SandboxCommandOptions = Pick<
  ResolvedOptions,
  'port' | 'host' | 'apiKey' | 'balance' | 'itemMs' | 'rateLimit' | 'maxItems' | 'webhookTimeScale' | 'seed'
> & { webhookUrl?: string; state?: string; dialect: string[] };

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function registerSandbox(program: Command, run: RunAction): void {
  program
    .command('sandbox')
    .description('run the local sandbox service: the whole API with fake data, no account, no network')
    .option('--port <port>', 'port to listen on (0 = any free port)', port, SANDBOX_DEFAULTS.port)
    .option('--host <host>', 'address to bind (loopback unless you mean it)', SANDBOX_DEFAULTS.host)
    .option('--api-key <key>', 'the sandbox API key', SANDBOX_DEFAULTS.apiKey)
    .option('--balance <coins>', 'starting balance', nonNegativeInt, SANDBOX_DEFAULTS.balance)
    .option(
      '--item-ms <ms>',
      'simulated work per item in milliseconds (slow-* items take 10x)',
      nonNegativeInt,
      SANDBOX_DEFAULTS.itemMs,
    )
    .option('--rate-limit <n>', 'requests per minute per key (0 = off)', nonNegativeInt, SANDBOX_DEFAULTS.rateLimit)
    .option('--max-items <n>', 'maximum items per task', positiveInt(), SANDBOX_DEFAULTS.maxItems)
    .option('--webhook-url <url>', 'deliver webhook events to this URL (http:// allowed on loopback)')
    .option(
      '--webhook-time-scale <factor>',
      'multiply the webhook retry schedule (0.01 = 100x faster)',
      positiveNumber,
      SANDBOX_DEFAULTS.webhookTimeScale,
    )
    .option('--seed <seed>', 'seed for deterministic results', SANDBOX_DEFAULTS.seed)
    .option('--state <file>', 'persist and reload tasks, balance and keys in this JSON file')
    .option(
      '--dialect <name>',
      "answer in a variant of the API the spec allows (repeatable; 'all' for every one, 'list' to see them)",
      collect,
      [],
    )
    .addHelpText(
      'after',
      examples([
        'taskctl sandbox',
        'taskctl sandbox --port 0 --item-ms 20 --rate-limit 0',
        'taskctl sandbox --webhook-url http://127.0.0.1:8788/ --webhook-time-scale 0.01',
        'taskctl sandbox --state ./sandbox.json',
        'taskctl sandbox --dialect error-string --dialect item-statuses',
        'taskctl sandbox --dialect list',
      ]) +
        '\nMagic items: fail-* fails that item; a task with a taskfail-* item ends failed; slow-* takes 10x longer.\n' +
        'stdout gets two `export` lines (base URL and the sandbox key, always in clear) for scripts; logs go to stderr.\n' +
        'The dashboard (key, webhook URL and delivery log with replay, tasks, balance, faults) is at the root URL,\n' +
        'http://127.0.0.1:8787/ by default, for this machine only; its address is logged on stderr.\n' +
        'Ctrl-C stops it. `--sandbox` on another command is a one-off sandbox that ends with that command.\n',
    )
    .action((options: SandboxCommandOptions, command: Command) => run(command, (ctx) => runSandbox(ctx, options)));
}

export async function runSandbox(ctx: Context, options: SandboxCommandOptions): Promise<void> {
  if (options.dialect.includes('list')) {
    await ctx.printer.list(
      Object.entries(DIALECTS).map(([name, description]) => ({ name, description })),
      [
        { header: 'name', value: (row) => row.name },
        { header: 'description', value: (row) => row.description },
      ],
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
    maxItems: options.maxItems,
    webhookUrl: options.webhookUrl,
    webhookTimeScale: options.webhookTimeScale,
    seed: options.seed,
    stateFile: options.state,
    dialects: options.dialect,
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
  const variants = options.dialect.length > 0 ? `, dialects: ${options.dialect.join(', ')}` : '';
  ctx.printer.info(`sandbox listening on ${sandbox.url} (key ${sandbox.apiKey}${variants}); Ctrl-C to stop`);
  ctx.printer.info(`dashboard: ${sandbox.dashboard} (this machine only)`);
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

/** A value safe to paste after `export NAME=` (a --api-key with spaces or quotes stays one word). */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

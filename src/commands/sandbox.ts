import { Option, type Command } from 'commander';
import type { SandboxCommandOptions } from '../core/sandbox.js';
import { examples, type RunAction } from './help-text.js';
import { SANDBOX_DEFAULTS } from '../sandbox/defaults.js';
import {
  append,
  nonNegativeInt,
  port,
  positiveDuration,
  positiveInt,
  positiveNumber,
  signedDuration,
} from './parsers.js';

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
    .option('--rate-limit <n>', 'requests per window per key (0 = off)', nonNegativeInt, SANDBOX_DEFAULTS.rateLimit)
    .addOption(
      new Option('--rate-window <duration>', 'length of the rate-limit window (whole seconds)')
        .argParser(positiveDuration('--rate-window'))
        .default(SANDBOX_DEFAULTS.rateWindowMs, '60s'),
    )
    .option('--max-items <n>', 'maximum items per task', positiveInt(), SANDBOX_DEFAULTS.maxItems)
    .option('--webhook-url <url>', 'deliver webhook events to this URL (http:// allowed on loopback)')
    .option(
      '--webhook-time-scale <factor>',
      'multiply the webhook redelivery schedule (0.01 = 100x faster)',
      positiveNumber,
      SANDBOX_DEFAULTS.webhookTimeScale,
    )
    .option('--seed <seed>', 'seed for deterministic results', SANDBOX_DEFAULTS.seed)
    .option('--state <file>', 'persist and reload tasks, balance and keys in this JSON file')
    .option(
      '--dialect <name>',
      "answer in a variant of the API the contract allows (repeatable; 'all' for every one, 'list' to see them)",
      append,
      [],
    )
    .option(
      '--clock-skew <duration>',
      "run the sandbox's clock this far from this machine's (e.g. 3s, -3s): timestamps, Date headers, rate-limit windows",
      signedDuration,
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
        'taskctl sandbox --dialect whole-seconds --clock-skew 3s',
      ]) +
        '\nMagic items: fail-* fails that item; a task with a taskfail-* item ends failed; slow-* takes 10x longer.\n' +
        'stdout gets two `export` lines (base URL and the sandbox key, always in clear) for scripts; logs go to stderr.\n' +
        'The dashboard (key, webhook URL and delivery log with replay, tasks, balance, faults) is at the root URL, ' +
        'http://127.0.0.1:8787/ by default, for this machine only; its address is logged on stderr.\n' +
        'Ctrl-C stops it. `--sandbox` on another command is a one-off sandbox that ends with that command.\n',
    )
    .action((options: SandboxCommandOptions, command: Command) =>
      run(command, async (ctx) => (await import('../core/sandbox.js')).runSandbox(ctx, options)),
    );
}

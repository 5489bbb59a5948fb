import { Option, type Command } from 'commander';
import type { CreateOptions } from '../core/submit/index.js';
import { examples, type RunAction } from './help-text.js';
import { absolutePath, positiveDuration, itemFiles } from './parsers.js';
import { addSpendOptions, addWaitOptions } from './shared-flags.js';
import { taskColumnNames } from '../output/task-columns.js';

export function registerCreate(program: Command, run: RunAction): void {
  const command = program
    .command('create')
    .description('create a task: a service plus items from arguments, files (-f) or piped stdin')
    .argument('<service>', 'service id (see `taskctl services`)')
    .argument('[items...]', 'items; when none are given and no -f, items are read from stdin')
    .option('-f, --file <path>', 'read items from a file (- = stdin); repeatable', itemFiles)
    .addOption(
      new Option('--format <format>', 'item file format')
        .choices(['lines', 'json', 'ndjson', 'csv'])
        .default(undefined, 'by extension, else lines'),
    )
    .option('--column <name>', 'csv column or json property holding the item')
    .option('--skip-invalid', 'drop invalid items with a warning instead of refusing (exit 3)')
    .option(
      '--no-validate',
      'send items as read (edge spaces trimmed), without per-service checks, case folding or punycode',
    )
    .option('--keep-duplicates', 'send duplicate items (they are removed by default)')
    .option('--dry-run', 'validate and price the items, show the balance after; create nothing')
    .option(
      '--reuse-window <duration>',
      'reuse a task with the same service and items created within this window (e.g. 1h); never a failed one',
      positiveDuration('--reuse-window'),
    )
    .option('--wait', 'then wait for the task(s) like `taskctl wait`')
    .option(
      '--journal <file>',
      'record the job in FILE (JSON lines, fsynced) so that `taskctl resume FILE` continues it after a crash',
      absolutePath,
    );
  addSpendOptions(command);
  addWaitOptions(command);
  command
    .addHelpText(
      'after',
      examples([
        'taskctl create domain_check_availability example.com example.org',
        'taskctl create domain_check_availability -f domains.txt --dry-run',
        'taskctl create domain_check_availability -f domains.txt --dry-run -q',
        "jq -r '.[].domain' leads.json | taskctl create domain_check_availability -q -y",
        'taskctl create fanpage_extract_contact -f pages.csv --column url --max-cost 50',
        'taskctl create domain_check_availability -f big.txt --chunk-size 5000 --wait',
        'taskctl create domain_check_availability -f big.txt --reuse-window 6h -y',
        'taskctl create domain_whois_history -f big.txt --chunk-size 500 --journal jl',
        'taskctl create domain_check_availability Example.COM --no-validate',
      ]) +
        '\nItems: UTF-8 or UTF-16 with BOM; blank lines and # comments are skipped; duplicates removed; a json or ' +
        'ndjson object gives its "target" (or the --column property).\n' +
        `Output: the created task(s) (tsv: ${taskColumnNames().join(', ')}); -q prints ids only.\n` +
        '--dry-run tsv: service, items, tasks, price_per_item, estimate, balance, balance_after, currency, normalised; ' +
        '-q: the estimate alone.\n' +
        'Spending at or above confirm-above (default: 1000 coins) asks on a terminal; a script (stdin or stdout not a ' +
        'terminal, CI, --no-input) is refused with exit 2 unless --yes, or --max-cost covers the estimate. No is exit 13.\n',
    )
    .action((service: string, items: string[], options: CreateOptions, cmd: Command) =>
      run(cmd, async (ctx) => {
        const { runCreate } = await import('../core/submit/index.js');
        await runCreate(ctx, service, items, options);
      }),
    );
}

import type { Command } from 'commander';
import type { DiffOptions } from '../core/diff/index.js';
import { examples, type RunAction } from './help-text.js';
import { collect } from './parsers.js';

export function registerDiff(program: Command, run: RunAction): void {
  program
    .command('diff')
    .description('what changed, item by item, between two runs (exit 0 the same, 15 different)')
    .argument('<a>', 'before: a task id, a journal (create --journal), a results file (show -o ndjson|json|csv), or -')
    .argument('<b>', 'after: the same kinds as <a>')
    .option(
      '--fields <names>',
      'compare only these fields, comma-separated or repeated (default: status and every result field; error only when named)',
      collect,
    )
    .addHelpText(
      'after',
      examples([
        'taskctl diff 41 42',
        'taskctl diff yesterday.ndjson today.ndjson',
        'taskctl diff last-night.journal tonight.journal --fields available',
        'taskctl show 42 -o ndjson > before.ndjson; taskctl diff before.ndjson 43',
        'taskctl diff before.csv after.csv -o csv > changes.csv',
        'taskctl diff before.ndjson after.ndjson -q || echo "something changed"',
      ]) +
        '\nItems are matched by target; a target repeated on one side pairs in order.' +
        '\nAn item on one side only is one change, field "item".' +
        '\nnull, a missing field and an empty csv cell are the same.' +
        '\nA side of only digits is a task id (./42 is the file 42).' +
        '\nA file is recognised by its content; tsv has no header: export ndjson or csv.' +
        '\n-o ndjson|json|csv|tsv: one record per change, in no set order: target, field, ' +
        'before, after, before_task, after_task, change (added, removed or changed).' +
        '\nThe table for people is sorted by item.' +
        '\nExit: 0 the same, 15 different; a failed read keeps its code (5, 8, ...);' +
        '\na task sent without all its items is 8: never called the same.' +
        '\nA task still running is compared as it is, with a warning: wait for it first.' +
        '\nSides with no result field in common (another service, a renamed field) are 2;' +
        '\n--fields status compares only the statuses.\n',
    )
    .action((a: string, b: string, options: DiffOptions, command: Command) =>
      run(command, async (ctx) => (await import('../core/diff/index.js')).runDiff(ctx, a, b, options)),
    );
}

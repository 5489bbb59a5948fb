/** Flags that several commands declare alike: the wait flags (`wait`, `create --wait`, `retry --wait`) and the
 * spending flags (`create`, `retry`). The code reading them lives in core/follow/wait-loop.ts and core/submit/. */
import { Option, type Command } from 'commander';
import { wideOption } from '../output/columns.js';
import { reportOption } from '../report/write.js';
import { duration, nonNegativeInt, positiveDuration, positiveInt } from './parsers.js';

/** The wait flags, shared by `wait` and `create --wait`. */
export function addWaitOptions(command: Command): Command {
  return command
    .option(
      '--interval <duration>',
      "poll interval while a task's end cannot be predicted; grows x1.5 to 30s while nothing changes",
      duration,
      2000,
    )
    .option('--timeout <duration>', 'give up after this long (exit 124); 0 = never', duration, 30 * 60_000)
    .option(
      '--outage-tolerance <duration>',
      'give up when reads keep failing this long from the first that failed: exit 8, or 7 after 429s (default: 2m)',
      positiveDuration('--outage-tolerance'),
    )
    .option('--any', 'return when the first task reaches the state')
    .addOption(
      new Option('--until <state>', 'wait for this state instead of the end').choices(['processing', 'completed']),
    )
    .option('--allow-item-failures', 'exit 0 (not 11) when tasks completed with some failed items')
    .option('--results', 'end with the item results as `taskctl show` prints them, also with -o json|ndjson|tsv|csv')
    .option('--no-results', 'end with the task records only (on a terminal, one task ends with its item table)')
    .addOption(wideOption())
    .addOption(reportOption());
}

/** The spending flags `create` and `retry` share (core/submit reads them). */
export function addSpendOptions(command: Command): Command {
  return command
    .option('--max-cost <coins>', 'refuse (exit 6) when the estimate is above this', nonNegativeInt)
    .option('-y, --yes', 'do not ask for confirmation above the confirm-above setting')
    .option('--chunk-size <n>', 'split into several tasks of at most n items, created in order', positiveInt());
}

/** `--error TEXT`, repeatable (ORed), matched case-insensitively (core/job/error-match.ts). */
export function errorOption(description: string): Option {
  return new Option('--error <text>', `${description}; repeatable`).argParser(
    (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
  );
}

/** `--journal` where `--job` is meant (show, wait): accepted only to be refused with a pointer to `--job`. */
export function journalMisnamed(): Option {
  return new Option('--journal <file>').hideHelp();
}

/**
 * `taskctl api [METHOD] <path>`: a request to any path under the base URL through the one client (auth,
 * rate limit, redaction, deadline, body cap, GET-only resends), like `gh api` and `stripe get`. The body is printed as
 * it came (pretty JSON on a terminal); the exit code is mapped like every other command's.
 */
import type { Command } from 'commander';
import { REQUEST_METHODS } from '../api/constants.js';
import type { ApiCommandOptions } from '../core/api-request.js';
import { examples, type RunAction } from './help-text.js';
import { collectField } from './parsers.js';

export function registerApi(program: Command, run: RunAction): void {
  program
    .command('api')
    .description('send a request to any API path and print the response body')
    .usage('[METHOD] <path> [options]')
    .argument('<method-or-path>', `${REQUEST_METHODS.join(', ')} (default: GET), or the path`)
    .argument('[path]', 'path relative to the base URL, e.g. /balance or /tasks/42')
    .option(
      '-f, --raw-field <key=value>',
      'a string field: query for GET/DELETE, JSON body for POST/PUT/PATCH; key[] appends to a list; repeatable',
      collectField(false),
    )
    .option(
      '-F, --field <key=value>',
      'a typed field: numbers, true, false and null as JSON, @file (or @-) for a file’s text; repeatable',
      collectField(true),
    )
    .option(
      '--input <file>',
      'JSON request body from a file (- = stdin), checked before sending; fields go to the query',
    )
    .option('-i, --include', 'print the HTTP status line and response headers (secrets redacted) before the body')
    .addHelpText(
      'after',
      `${examples([
        'taskctl api /balance',
        'taskctl api /tasks -f page=2 -f per_page=5',
        'taskctl api POST /tasks -f service=domain_check_availability \\',
        '    -f "items[]=example.com" -f "items[]=fail-x.com"',
        'taskctl api POST /tasks --input body.json',
        'taskctl api -i /tasks/42',
        'taskctl api /tasks/42 | jq .data.status',
      ])}
Only a GET is sent again once it may have reached the server; other methods \
are resent only when never sent, or after a 429. Exit codes as for every \
command (404 → 5, or 8 for a /tasks/N 404 not in the API's error form; \
401 → 4, 429 → 7, 5xx → 8, unknown 4xx → 12); the body \
is printed either way.
`,
    )
    .action((first: string, second: string | undefined, options: ApiCommandOptions, command: Command) =>
      run(command, async (ctx) => (await import('../core/api-request.js')).runApi(ctx, first, second, options)),
    );
}

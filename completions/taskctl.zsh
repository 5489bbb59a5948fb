#compdef taskctl
# zsh completion for taskctl
# Generated from the command tree by `npm run completions` (also printed by `taskctl completion SHELL`); do not edit.
# Install: mkdir -p ~/.zfunc && taskctl completion zsh > ~/.zfunc/_taskctl
#    then: fpath=(~/.zfunc $fpath) in ~/.zshrc, before compinit; restart zsh
#      or: echo 'source <(taskctl completion zsh)' >> ~/.zshrc   (after compinit)

# $1 = command path: sets __taskctl_list to 'name:description' of its subcommands.
__taskctl_subcommands() {
  case $1 in
    '') __taskctl_list=('services:list services with their price per item' 'balance:show the coin balance' 'list:list tasks, newest first as the service returns them: one page, --all, or a search with filters' 'ls:list tasks, newest first as the service returns them: one page, --all, or a search with filters' 'show:show tasks with their item results' 'get:show tasks with their item results' 'create:create a task: a service plus items from arguments, files (-f) or piped stdin' 'retry:create a new task from the items of tasks that did not complete' 'resume:continue an interrupted job (a create or retry stopped by Ctrl-C, a kill, a refusal); never resends a chunk that has a task' 'jobs:this machine'\''s jobs (every create that may send is one), newest first, and the disk they use' 'diff:what changed, item by item, between two runs (exit 0 the same, 15 different)' 'wait:block until tasks finish; the exit code tells how they ended' 'watch:stream task status changes as they happen (human lines, or NDJSON shaped like webhook events)' 'api:send a request to any API path and print the response body' 'auth:store, inspect and remove the API key' 'config:read and write settings in the config file (per profile)' 'webhook:receive webhook events on this machine, or send a test event' 'sandbox:run the local sandbox service: the whole API with fake data, no account, no network' 'completion:print the shell completion script (bash, zsh or fish)' 'help:display help for command') ;;
    'auth') __taskctl_list=('login:verify an API key with GET /balance and save it (with the base URL) in the profile' 'status:show where the key comes from (masked), the base URL, whether the key works, and the rate-limit budget' 'logout:remove the profile'\''s stored API key' 'help:display help for command') ;;
    'config') __taskctl_list=('get:print the effective value of a setting, its default when nothing sets it' 'set:store a setting in the profile' 'unset:remove a setting from the profile' 'list:list every setting with its effective value and where it comes from' 'path:print the config file path' 'help:display help for command') ;;
    'webhook') __taskctl_list=('listen:run a local webhook receiver: verify the signature, print each event once, forward or exec' 'simulate:send a correctly signed event built from a real task to a URL (a delivery of its own, marked simulated)' 'help:display help for command') ;;
    *) __taskctl_list=() ;;
  esac
}

# $1 = command path, $2 = word: sets __taskctl_r to the subcommand's path; fails when $2 is not a subcommand.
__taskctl_resolve() {
  case "$1|$2" in
    '|services') __taskctl_r='services' ;;
    '|balance') __taskctl_r='balance' ;;
    '|list') __taskctl_r='list' ;;
    '|ls') __taskctl_r='list' ;;
    '|show') __taskctl_r='show' ;;
    '|get') __taskctl_r='show' ;;
    '|create') __taskctl_r='create' ;;
    '|retry') __taskctl_r='retry' ;;
    '|resume') __taskctl_r='resume' ;;
    '|jobs') __taskctl_r='jobs' ;;
    '|diff') __taskctl_r='diff' ;;
    '|wait') __taskctl_r='wait' ;;
    '|watch') __taskctl_r='watch' ;;
    '|api') __taskctl_r='api' ;;
    '|auth') __taskctl_r='auth' ;;
    '|config') __taskctl_r='config' ;;
    '|webhook') __taskctl_r='webhook' ;;
    '|sandbox') __taskctl_r='sandbox' ;;
    '|completion') __taskctl_r='completion' ;;
    '|help') __taskctl_r='help' ;;
    'auth|login') __taskctl_r='auth login' ;;
    'auth|status') __taskctl_r='auth status' ;;
    'auth|logout') __taskctl_r='auth logout' ;;
    'auth|help') __taskctl_r='auth help' ;;
    'config|get') __taskctl_r='config get' ;;
    'config|set') __taskctl_r='config set' ;;
    'config|unset') __taskctl_r='config unset' ;;
    'config|list') __taskctl_r='config list' ;;
    'config|path') __taskctl_r='config path' ;;
    'config|help') __taskctl_r='config help' ;;
    'webhook|listen') __taskctl_r='webhook listen' ;;
    'webhook|simulate') __taskctl_r='webhook simulate' ;;
    'webhook|help') __taskctl_r='webhook help' ;;
    *) return 1 ;;
  esac
}

# $1 = command path: sets __taskctl_list to 'flag:description' of the flags it accepts (its own, then the global ones).
__taskctl_options() {
  case $1 in
    '') __taskctl_list=('--version:print the version') ;;
    'services') __taskctl_list=('--columns:only these columns, in this order (table, tsv, csv)' '--wide:every column at full width, whatever the terminal width') ;;
    'list') __taskctl_list=('--page:page to read' '--per-page:tasks per page, 1..100 (default: 25; 100 with --all or a filter)' '--all:read every page (from --page on), streaming; with a filter, every match' '--status:only tasks in this status, repeatable or comma-separated: pending, processing, completed, failed, a word for an ended task (cancelled, expired, ...), or a group: working (running), waiting, unfinished, ended' '--service:only tasks of this service (repeatable or comma-separated)' '--limit:print at most this many tasks, reading on past one page when it is more; a search stops there (default for a search: --per-page, else 25)' '--since:only tasks created in the last DURATION (30m, 24h) or since an ISO time' '--until:only tasks created at least DURATION ago, or until an ISO time' '--columns:only these columns, in this order (table, tsv, csv)' '--wide:every column at full width, whatever the terminal width') ;;
    'show') __taskctl_list=('--job:every task of a job (its id, see taskctl jobs, or its journal file), in chunk order, streamed' '--error:only items that did not complete whose error contains TEXT (what `retry --error` sends); repeatable' '--items-status:only completed items, or (failed) only those that did not complete' '--columns:only these columns, in this order (table, tsv, csv)' '--wide:every column at full width, whatever the terminal width' '--report:write a report when done: junit=FILE or github (job summary + annotations); repeatable') ;;
    'create') __taskctl_list=('-f:read items from a file (- = stdin); repeatable' '--file:read items from a file (- = stdin); repeatable' '--format:item file format' '--column:csv column or json property holding the item' '--skip-invalid:drop invalid items with a warning instead of refusing (exit 3)' '--no-validate:send items as read (edge spaces trimmed), without per-service checks, case folding or punycode' '--keep-duplicates:send duplicate items (they are removed by default)' '--dry-run:validate and price the items, show the balance after; create nothing' '--reuse-window:reuse a task with the same service and items created within this window (e.g. 1h); never a failed one' '--wait:then wait for the task(s) like `taskctl wait`' '--journal:record the job in FILE (JSON lines, fsynced) so that `taskctl resume FILE` continues it after a crash' '--max-cost:refuse (exit 6) when the estimate is above this' '-y:do not ask for confirmation above the confirm-above setting' '--yes:do not ask for confirmation above the confirm-above setting' '--chunk-size:split into several tasks of at most n items, created in order' '--interval:poll interval while a task'\''s end cannot be predicted; grows x1.5 to 30s while nothing changes' '--timeout:give up after this long (exit 124); 0 = never' '--outage-tolerance:give up when reads keep failing this long from the first that failed: exit 8, or 7 after 429s (default: 2m)' '--any:return when the first task reaches the state' '--until:wait for this state instead of the end' '--allow-item-failures:exit 0 (not 11) when tasks completed with some failed items' '--results:end with the item results as `taskctl show` prints them, also with -o json|ndjson|tsv|csv' '--no-results:end with the task records only (on a terminal, one task ends with its item table)' '--wide:every column at full width, whatever the terminal width' '--report:write a report when done: junit=FILE or github (job summary + annotations); repeatable') ;;
    'retry') __taskctl_list=('--job:the tasks of a job (its id, see taskctl jobs, or its journal file): re-run what did not complete' '--journal:keep the retry'\''s journal (a new job) in FILE, its items in FILE.input' '--error:only items whose error (else their task'\''s) contains TEXT, case-insensitively; repeatable' '--dry-run:price the items to retry, show the balance after; create nothing' '--reuse-window:reuse a retry task with the same service and items created within this window' '--no-reuse:always create a new task, even when the same retry was made within the window' '--keep-duplicates:send an item as often as it failed across the tasks (removed by default)' '--wait:then wait for the new task(s) like `taskctl wait`' '--max-cost:refuse (exit 6) when the estimate is above this' '-y:do not ask for confirmation above the confirm-above setting' '--yes:do not ask for confirmation above the confirm-above setting' '--chunk-size:split into several tasks of at most n items, created in order' '--interval:poll interval while a task'\''s end cannot be predicted; grows x1.5 to 30s while nothing changes' '--timeout:give up after this long (exit 124); 0 = never' '--outage-tolerance:give up when reads keep failing this long from the first that failed: exit 8, or 7 after 429s (default: 2m)' '--any:return when the first task reaches the state' '--until:wait for this state instead of the end' '--allow-item-failures:exit 0 (not 11) when tasks completed with some failed items' '--results:end with the item results as `taskctl show` prints them, also with -o json|ndjson|tsv|csv' '--no-results:end with the task records only (on a terminal, one task ends with its item table)' '--wide:every column at full width, whatever the terminal width' '--report:write a report when done: junit=FILE or github (job summary + annotations); repeatable') ;;
    'resume') __taskctl_list=('--adopt:settle a chunk the job stopped on (exit 9), or one whose task is not its own: it is task ID; repeatable' '--resend:settle a chunk the job stopped on (exit 9): send it again, unless the task list shows a task of it not named before (exit 9); repeatable' '--ignore-job:go on without waiting for a job that took over items of this one and has not finished (exit 9), unless its request in doubt may have made them; what it creates of them later is paid twice; kept in the journal; repeatable' '--skip-refused:leave the chunks whose items the service refused (exit 3) without a task, and send the rest' '--reuse-window:look for a task of each chunk'\''s items created within this window before sending it (default: the job'\''s own)' '--no-reuse:send without looking for a task of the items first, whatever the job'\''s --reuse-window' '--forget-gone-journal:go on though the journal this job was last run from (a copy) is gone: what its run created may be bought again; kept once the run sends' '--max-cost:refuse (exit 6) when the remaining estimate is above this' '-y:do not ask for confirmation above the confirm-above setting' '--yes:do not ask for confirmation above the confirm-above setting' '--wait:then wait for every task of the job like `taskctl wait`' '--interval:poll interval while a task'\''s end cannot be predicted; grows x1.5 to 30s while nothing changes' '--timeout:give up after this long (exit 124); 0 = never' '--outage-tolerance:give up when reads keep failing this long from the first that failed: exit 8, or 7 after 429s (default: 2m)' '--any:return when the first task reaches the state' '--until:wait for this state instead of the end' '--allow-item-failures:exit 0 (not 11) when tasks completed with some failed items' '--results:end with the item results as `taskctl show` prints them, also with -o json|ndjson|tsv|csv' '--no-results:end with the task records only (on a terminal, one task ends with its item table)' '--wide:every column at full width, whatever the terminal width' '--report:write a report when done: junit=FILE or github (job summary + annotations); repeatable') ;;
    'jobs') __taskctl_list=('--limit:print at most this many jobs' '--all:every job on this machine, not only the current profile'\''s and base URL'\''s' '--prune:remove finished and superseded jobs'\'' journals, and those of creates killed before they recorded their job, from the state directory now (never an unfinished job'\''s, nor one a running taskctl holds: next time)' '--columns:only these columns, in this order (table, tsv, csv)' '--wide:every column at full width, whatever the terminal width') ;;
    'diff') __taskctl_list=('--fields:compare only these fields, comma-separated or repeated (default: status and every result field; error only when named)') ;;
    'wait') __taskctl_list=('--job:every task of a job (its id, see taskctl jobs, or its journal file)' '--interval:poll interval while a task'\''s end cannot be predicted; grows x1.5 to 30s while nothing changes' '--timeout:give up after this long (exit 124); 0 = never' '--outage-tolerance:give up when reads keep failing this long from the first that failed: exit 8, or 7 after 429s (default: 2m)' '--any:return when the first task reaches the state' '--until:wait for this state instead of the end' '--allow-item-failures:exit 0 (not 11) when tasks completed with some failed items' '--results:end with the item results as `taskctl show` prints them, also with -o json|ndjson|tsv|csv' '--no-results:end with the task records only (on a terminal, one task ends with its item table)' '--wide:every column at full width, whatever the terminal width' '--report:write a report when done: junit=FILE or github (job summary + annotations); repeatable') ;;
    'watch') __taskctl_list=('--job:every task of a job (its id, see taskctl jobs, or its journal file)' '--follow:with no ids: keep going after the current tasks finish, picking up new ones' '--interval:poll interval while a task'\''s end cannot be predicted; grows x1.5 to 30s while nothing changes' '--timeout:stop after this long (exit 124); 0 = never' '--outage-tolerance:give up when reads keep failing this long from the first that failed: exit 8, or 7 after 429s (default: 2m)') ;;
    'api') __taskctl_list=('-f:a string field: query for GET/DELETE, JSON body for POST/PUT/PATCH; key[] appends to a list; repeatable' '--raw-field:a string field: query for GET/DELETE, JSON body for POST/PUT/PATCH; key[] appends to a list; repeatable' '-F:a typed field: numbers, true, false and null as JSON, @file (or @-) for a file’s text; repeatable' '--field:a typed field: numbers, true, false and null as JSON, @file (or @-) for a file’s text; repeatable' '--input:JSON request body from a file (- = stdin), checked before sending; fields go to the query' '-i:print the HTTP status line and response headers (secrets redacted) before the body' '--include:print the HTTP status line and response headers (secrets redacted) before the body') ;;
    'auth login') __taskctl_list=('--with-key:read the key from stdin instead of a hidden prompt') ;;
    'webhook listen') __taskctl_list=('--port:port to listen on (0 = any free port)' '--host:address to bind' '--path:path that accepts deliveries' '--forward-to:re-POST each event here; the service gets 200 only after its 2xx (else 502)' '--exec:run this shell command per event, with the event JSON on stdin' '--exec-concurrency:commands running at once (1 = one at a time, in order)' '--queue:events waiting for --exec at most; a full queue answers 503' '--max-body:largest event body (413 beyond): 1MiB, 256KiB, bytes' '--no-dedupe:hand repeat deliveries of an event on again (default: printed as duplicates only)' '--spool:make acknowledged events durable (fsync before the 200; rerun at the next start)' '--catch-up:first hand on one event per task created within DURATION (synthesised)' '--catch-up-task:first hand on the event of this task (repeatable)' '--no-wire:leave the sandbox'\''s webhook URL alone (default: set to this listener, put back at exit)') ;;
    'webhook simulate') __taskctl_list=('--event:event to send' '--to:receiver URL') ;;
    'sandbox') __taskctl_list=('--port:port to listen on (0 = any free port)' '--host:address to bind (loopback unless you mean it)' '--api-key:the sandbox API key' '--balance:starting balance' '--item-ms:simulated work per item in milliseconds (slow-* items take 10x)' '--rate-limit:requests per window per key (0 = off)' '--rate-window:length of the rate-limit window (whole seconds)' '--max-items:maximum items per task' '--webhook-url:deliver webhook events to this URL (http:// allowed on loopback)' '--webhook-time-scale:multiply the webhook redelivery schedule (0.01 = 100x faster)' '--seed:seed for deterministic results' '--state:persist and reload tasks, balance and keys in this JSON file' '--dialect:answer in a variant of the API the contract allows (repeatable; '\''all'\'' for every one, '\''list'\'' to see them)' '--clock-skew:run the sandbox'\''s clock this far from this machine'\''s (e.g. 3s, -3s): timestamps, Date headers, rate-limit windows') ;;
    *) __taskctl_list=() ;;
  esac
  __taskctl_list+=('--profile:config profile to use (env TASKCTL_PROFILE)' '--base-url:API base URL (env TASKCTL_BASE_URL)' '--api-key-file:read the API key from a file (- = stdin); there is no flag that takes the key itself' '-o:output format' '--output:output format' '--json:same as -o json' '--no-color:disable colour (also NO_COLOR, TERM=dumb)' '-q:print only what the next command takes: ids, one a line' '--quiet:print only what the next command takes: ids, one a line' '-v:trace HTTP requests on stderr (secrets redacted)' '--verbose:trace HTTP requests on stderr (secrets redacted)' '--request-timeout:budget of one request, every attempt included, e.g. 20s' '--no-input:never prompt' '--ci:CI mode (also when CI is set): no spinners or prompts, timestamped progress' '--sandbox:start a local sandbox service for this one invocation and talk to it' '-h:show help' '--help:show help')
}

# $1 = command path, $2 = flag: sets __taskctl_kind (choices, file, services, tasks, jobs, report, none) and, for choices,
# __taskctl_list; fails when the flag takes no value.
__taskctl_value() {
  case "$1|$2" in
    'services|--columns') __taskctl_kind=choices; __taskctl_list=('service' 'display_name' 'pricing' 'currency' 'description') ;;
    'list|--page') __taskctl_kind=none ;;
    'list|--per-page') __taskctl_kind=none ;;
    'list|--status') __taskctl_kind=choices; __taskctl_list=('pending' 'processing' 'completed' 'failed') ;;
    'list|--service') __taskctl_kind=services ;;
    'list|--limit') __taskctl_kind=none ;;
    'list|--since') __taskctl_kind=none ;;
    'list|--until') __taskctl_kind=none ;;
    'list|--columns') __taskctl_kind=choices; __taskctl_list=('id' 'service' 'status' 'total_items' 'cost' 'created_at' 'finished_at' 'completed_items' 'failed_items') ;;
    'show|--job') __taskctl_kind=jobs ;;
    'show|--error') __taskctl_kind=none ;;
    'show|--items-status') __taskctl_kind=choices; __taskctl_list=('completed' 'failed') ;;
    'show|--columns') __taskctl_kind=none ;;
    'show|--report') __taskctl_kind=report ;;
    'create|-f') __taskctl_kind=file ;;
    'create|--file') __taskctl_kind=file ;;
    'create|--format') __taskctl_kind=choices; __taskctl_list=('lines' 'json' 'ndjson' 'csv') ;;
    'create|--column') __taskctl_kind=none ;;
    'create|--reuse-window') __taskctl_kind=none ;;
    'create|--journal') __taskctl_kind=none ;;
    'create|--max-cost') __taskctl_kind=none ;;
    'create|--chunk-size') __taskctl_kind=none ;;
    'create|--interval') __taskctl_kind=none ;;
    'create|--timeout') __taskctl_kind=none ;;
    'create|--outage-tolerance') __taskctl_kind=none ;;
    'create|--until') __taskctl_kind=choices; __taskctl_list=('processing' 'completed') ;;
    'create|--report') __taskctl_kind=report ;;
    'retry|--job') __taskctl_kind=jobs ;;
    'retry|--journal') __taskctl_kind=none ;;
    'retry|--error') __taskctl_kind=none ;;
    'retry|--reuse-window') __taskctl_kind=none ;;
    'retry|--max-cost') __taskctl_kind=none ;;
    'retry|--chunk-size') __taskctl_kind=none ;;
    'retry|--interval') __taskctl_kind=none ;;
    'retry|--timeout') __taskctl_kind=none ;;
    'retry|--outage-tolerance') __taskctl_kind=none ;;
    'retry|--until') __taskctl_kind=choices; __taskctl_list=('processing' 'completed') ;;
    'retry|--report') __taskctl_kind=report ;;
    'resume|--adopt') __taskctl_kind=none ;;
    'resume|--resend') __taskctl_kind=none ;;
    'resume|--ignore-job') __taskctl_kind=jobs ;;
    'resume|--reuse-window') __taskctl_kind=none ;;
    'resume|--max-cost') __taskctl_kind=none ;;
    'resume|--interval') __taskctl_kind=none ;;
    'resume|--timeout') __taskctl_kind=none ;;
    'resume|--outage-tolerance') __taskctl_kind=none ;;
    'resume|--until') __taskctl_kind=choices; __taskctl_list=('processing' 'completed') ;;
    'resume|--report') __taskctl_kind=report ;;
    'jobs|--limit') __taskctl_kind=none ;;
    'jobs|--columns') __taskctl_kind=choices; __taskctl_list=('id' 'started' 'service' 'items' 'chunks' 'in_doubt' 'state' 'base_url' 'journal') ;;
    'diff|--fields') __taskctl_kind=none ;;
    'wait|--job') __taskctl_kind=jobs ;;
    'wait|--interval') __taskctl_kind=none ;;
    'wait|--timeout') __taskctl_kind=none ;;
    'wait|--outage-tolerance') __taskctl_kind=none ;;
    'wait|--until') __taskctl_kind=choices; __taskctl_list=('processing' 'completed') ;;
    'wait|--report') __taskctl_kind=report ;;
    'watch|--job') __taskctl_kind=jobs ;;
    'watch|--interval') __taskctl_kind=none ;;
    'watch|--timeout') __taskctl_kind=none ;;
    'watch|--outage-tolerance') __taskctl_kind=none ;;
    'api|-f') __taskctl_kind=none ;;
    'api|--raw-field') __taskctl_kind=none ;;
    'api|-F') __taskctl_kind=none ;;
    'api|--field') __taskctl_kind=none ;;
    'api|--input') __taskctl_kind=file ;;
    'webhook listen|--port') __taskctl_kind=none ;;
    'webhook listen|--host') __taskctl_kind=none ;;
    'webhook listen|--path') __taskctl_kind=none ;;
    'webhook listen|--forward-to') __taskctl_kind=none ;;
    'webhook listen|--exec') __taskctl_kind=none ;;
    'webhook listen|--exec-concurrency') __taskctl_kind=none ;;
    'webhook listen|--queue') __taskctl_kind=none ;;
    'webhook listen|--max-body') __taskctl_kind=none ;;
    'webhook listen|--spool') __taskctl_kind=none ;;
    'webhook listen|--catch-up') __taskctl_kind=none ;;
    'webhook listen|--catch-up-task') __taskctl_kind=none ;;
    'webhook simulate|--event') __taskctl_kind=choices; __taskctl_list=('processing' 'completed' 'failed') ;;
    'webhook simulate|--to') __taskctl_kind=none ;;
    'sandbox|--port') __taskctl_kind=none ;;
    'sandbox|--host') __taskctl_kind=none ;;
    'sandbox|--api-key') __taskctl_kind=none ;;
    'sandbox|--balance') __taskctl_kind=none ;;
    'sandbox|--item-ms') __taskctl_kind=none ;;
    'sandbox|--rate-limit') __taskctl_kind=none ;;
    'sandbox|--rate-window') __taskctl_kind=none ;;
    'sandbox|--max-items') __taskctl_kind=none ;;
    'sandbox|--webhook-url') __taskctl_kind=none ;;
    'sandbox|--webhook-time-scale') __taskctl_kind=none ;;
    'sandbox|--seed') __taskctl_kind=none ;;
    'sandbox|--state') __taskctl_kind=file ;;
    'sandbox|--dialect') __taskctl_kind=none ;;
    'sandbox|--clock-skew') __taskctl_kind=none ;;
    *'|--profile') __taskctl_kind=none ;;
    *'|--base-url') __taskctl_kind=none ;;
    *'|--api-key-file') __taskctl_kind=file ;;
    *'|-o') __taskctl_kind=choices; __taskctl_list=('table' 'tsv' 'csv' 'json' 'ndjson') ;;
    *'|--output') __taskctl_kind=choices; __taskctl_list=('table' 'tsv' 'csv' 'json' 'ndjson') ;;
    *'|--request-timeout') __taskctl_kind=none ;;
    *) return 1 ;;
  esac
}

# $1 = command path, $2 = index of the positional argument, $3 = the first positional argument: sets __taskctl_kind
# (and __taskctl_list); fails when there is nothing to offer.
__taskctl_argument() {
  __taskctl_kind=''
  case $1 in
    'show') if (( $2 >= 0 )); then __taskctl_kind=tasks; fi ;;
    'create') if (( $2 == 0 )); then __taskctl_kind=services; fi ;;
    'resume') if (( $2 == 0 )); then __taskctl_kind=jobs; fi ;;
    'diff') if (( $2 == 0 )); then __taskctl_kind=file; elif (( $2 == 1 )); then __taskctl_kind=file; fi ;;
    'wait') if (( $2 >= 0 )); then __taskctl_kind=tasks; fi ;;
    'watch') if (( $2 >= 0 )); then __taskctl_kind=tasks; fi ;;
    'auth help') if (( $2 == 0 )); then __taskctl_kind=choices; __taskctl_list=('login' 'status' 'logout'); fi ;;
    'config get') if (( $2 == 0 )); then __taskctl_kind=choices; __taskctl_list=('profile' 'base-url' 'output' 'confirm-above' 'auth-scheme' 'request-timeout' 'outage-tolerance' 'job-retention' 'api-key'); fi ;;
    'config set') if (( $2 == 0 )); then __taskctl_kind=choices; __taskctl_list=('base-url' 'output' 'confirm-above' 'auth-scheme' 'request-timeout' 'outage-tolerance' 'job-retention'); elif (( $2 == 1 )); then case $3 in 'output') __taskctl_kind=choices; __taskctl_list=('table' 'tsv' 'csv' 'json' 'ndjson') ;; 'auth-scheme') __taskctl_kind=choices; __taskctl_list=('x-api-key' 'bearer') ;; esac; fi ;;
    'config unset') if (( $2 == 0 )); then __taskctl_kind=choices; __taskctl_list=('base-url' 'output' 'confirm-above' 'auth-scheme' 'request-timeout' 'outage-tolerance' 'job-retention'); fi ;;
    'config help') if (( $2 == 0 )); then __taskctl_kind=choices; __taskctl_list=('get' 'set' 'unset' 'list' 'path'); fi ;;
    'webhook simulate') if (( $2 == 0 )); then __taskctl_kind=tasks; fi ;;
    'webhook help') if (( $2 == 0 )); then __taskctl_kind=choices; __taskctl_list=('listen' 'simulate'); fi ;;
    'completion') if (( $2 == 0 )); then __taskctl_kind=choices; __taskctl_list=('bash' 'zsh' 'fish'); fi ;;
    'help') if (( $2 == 0 )); then __taskctl_kind=choices; __taskctl_list=('services' 'balance' 'list' 'show' 'create' 'retry' 'resume' 'jobs' 'diff' 'wait' 'watch' 'api' 'auth' 'config' 'webhook' 'sandbox' 'completion'); fi ;;
  esac
  [[ -n $__taskctl_kind ]]
}

# Offers the values of __taskctl_kind for the word being completed.
__taskctl_offer() {
  local -a found
  case $__taskctl_kind in
    choices) compadd -a __taskctl_list ;;
    file) _files ;;
    jobs) found=(${${(f)"$(taskctl --request-timeout 1500ms __complete jobs 2>/dev/null)"}/$'\t'/:}); _describe -t jobs 'job' found; _files ;;
    services) found=(${(f)"$(taskctl --request-timeout 1500ms __complete services 2>/dev/null)"}); compadd -a found ;;
    tasks) found=(${${(f)"$(taskctl --request-timeout 1500ms __complete tasks 2>/dev/null)"}/$'\t'/:}); _describe -V -t tasks 'task' found ;;
    report)
      if [[ $PREFIX == junit=* ]]; then
        compset -P 'junit='
        _files
      else
        compadd -S '' -- junit=
        compadd -- github
      fi ;;
  esac
}

_taskctl() {
  local cur=$PREFIX w cmdpath='' flag='' first='' npos=0 dashdash=0 i
  local __taskctl_r='' __taskctl_kind=''
  local -a __taskctl_list
  for ((i = 2; i < CURRENT; i++)); do
    w=${words[i]}
    if [[ -n $flag ]]; then flag=''; continue; fi
    if ((dashdash)); then ((npos == 0)) && first=$w; npos=$((npos + 1)); continue; fi
    case $w in
      --) dashdash=1 ;;
      --*=*) ;;
      -?*) __taskctl_value "$cmdpath" "$w" && flag=$w ;;
      *) if ((npos == 0)) && __taskctl_resolve "$cmdpath" "$w"; then cmdpath=$__taskctl_r; else ((npos == 0)) && first=$w; npos=$((npos + 1)); fi ;;
    esac
  done

  if [[ -n $flag ]]; then
    __taskctl_value "$cmdpath" "$flag" && __taskctl_offer
  elif ((!dashdash)) && [[ $cur == --*=* ]]; then
    __taskctl_value "$cmdpath" "${cur%%=*}" || return 1
    compset -P 1 '*='
    __taskctl_offer
  elif ((!dashdash)) && [[ $cur == -* ]]; then
    __taskctl_options "$cmdpath"
    _describe -t options 'option' __taskctl_list
  elif ((npos == 0 && !dashdash)) && __taskctl_subcommands "$cmdpath" && ((${#__taskctl_list} > 0)); then
    _describe -t commands 'command' __taskctl_list
  elif __taskctl_argument "$cmdpath" "$npos" "$first"; then
    __taskctl_offer
  else
    return 1
  fi
}

# Autoloaded from fpath: this file is the body of the function, so complete now. Sourced: register with compinit.
if [[ ${funcstack[1]} == _taskctl ]]; then
  _taskctl "$@"
elif (( $+functions[compdef] )); then
  compdef _taskctl taskctl
fi

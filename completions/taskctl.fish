# fish completion for taskctl
# Generated from the command tree by `npm run completions` (also printed by `taskctl completion SHELL`); do not edit.
# Install: mkdir -p ~/.config/fish/completions && taskctl completion fish > ~/.config/fish/completions/taskctl.fish

# $argv = command path, word: prints the subcommand's path; fails when the word is not a subcommand.
function __taskctl_resolve
    switch "$argv[1]|$argv[2]"
        case '|services'
            echo 'services'
        case '|balance'
            echo 'balance'
        case '|list'
            echo 'list'
        case '|ls'
            echo 'list'
        case '|show'
            echo 'show'
        case '|get'
            echo 'show'
        case '|create'
            echo 'create'
        case '|retry'
            echo 'retry'
        case '|resume'
            echo 'resume'
        case '|jobs'
            echo 'jobs'
        case '|diff'
            echo 'diff'
        case '|wait'
            echo 'wait'
        case '|watch'
            echo 'watch'
        case '|api'
            echo 'api'
        case '|auth'
            echo 'auth'
        case '|config'
            echo 'config'
        case '|webhook'
            echo 'webhook'
        case '|sandbox'
            echo 'sandbox'
        case '|completion'
            echo 'completion'
        case '|help'
            echo 'help'
        case 'auth|login'
            echo 'auth login'
        case 'auth|status'
            echo 'auth status'
        case 'auth|logout'
            echo 'auth logout'
        case 'auth|help'
            echo 'auth help'
        case 'config|get'
            echo 'config get'
        case 'config|set'
            echo 'config set'
        case 'config|unset'
            echo 'config unset'
        case 'config|list'
            echo 'config list'
        case 'config|path'
            echo 'config path'
        case 'config|help'
            echo 'config help'
        case 'webhook|listen'
            echo 'webhook listen'
        case 'webhook|simulate'
            echo 'webhook simulate'
        case 'webhook|help'
            echo 'webhook help'
        case '*'
            return 1
    end
end

# $argv = command path, flag: succeeds when the flag takes a value there.
function __taskctl_takes_value
    switch "$argv[1]|$argv[2]"
        case 'services|--columns' 'list|--page' 'list|--per-page' 'list|--status' 'list|--service' 'list|--limit' 'list|--since' 'list|--until' 'list|--columns' 'show|--job' 'show|--error' 'show|--items-status' 'show|--columns' 'show|--report' 'create|-f' 'create|--file' 'create|--format' 'create|--column' 'create|--reuse-window' 'create|--journal' 'create|--max-cost' 'create|--chunk-size' 'create|--interval' 'create|--timeout' 'create|--outage-tolerance' 'create|--until' 'create|--report' 'retry|--job' 'retry|--journal' 'retry|--error' 'retry|--reuse-window' 'retry|--max-cost' 'retry|--chunk-size' 'retry|--interval' 'retry|--timeout' 'retry|--outage-tolerance' 'retry|--until' 'retry|--report' 'resume|--adopt' 'resume|--resend' 'resume|--ignore-job' 'resume|--reuse-window' 'resume|--max-cost' 'resume|--interval' 'resume|--timeout' 'resume|--outage-tolerance' 'resume|--until' 'resume|--report' 'jobs|--limit' 'jobs|--columns' 'diff|--fields' 'wait|--job' 'wait|--interval' 'wait|--timeout' 'wait|--outage-tolerance' 'wait|--until' 'wait|--report' 'watch|--job' 'watch|--interval' 'watch|--timeout' 'watch|--outage-tolerance' 'api|-f' 'api|--raw-field' 'api|-F' 'api|--field' 'api|--input' 'webhook listen|--port' 'webhook listen|--host' 'webhook listen|--path' 'webhook listen|--forward-to' 'webhook listen|--exec' 'webhook listen|--exec-concurrency' 'webhook listen|--queue' 'webhook listen|--max-body' 'webhook listen|--spool' 'webhook listen|--catch-up' 'webhook listen|--catch-up-task' 'webhook simulate|--event' 'webhook simulate|--to' 'sandbox|--port' 'sandbox|--host' 'sandbox|--api-key' 'sandbox|--balance' 'sandbox|--item-ms' 'sandbox|--rate-limit' 'sandbox|--rate-window' 'sandbox|--max-items' 'sandbox|--webhook-url' 'sandbox|--webhook-time-scale' 'sandbox|--seed' 'sandbox|--state' 'sandbox|--dialect' 'sandbox|--clock-skew' '*|--profile' '*|--base-url' '*|--api-key-file' '*|-o' '*|--output' '*|--request-timeout'
            return 0
    end
    return 1
end

# Prints the number of positional arguments, the command path and the first positional argument, for the tokens
# before the cursor.
function __taskctl_state
    set -l tokens (commandline -opc)
    set -l cmdpath ''
    set -l first ''
    set -l npos 0
    set -l skip 0
    set -l dashdash 0
    for w in $tokens[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        if test $dashdash = 1
            test $npos = 0; and set first $w
            set npos (math $npos + 1)
            continue
        end
        switch $w
            case '--'
                set dashdash 1
            case '--*=*'
            case '-?*'
                __taskctl_takes_value "$cmdpath" $w; and set skip 1
            case '*'
                if test $npos = 0; and set -l next (__taskctl_resolve "$cmdpath" $w)
                    set cmdpath $next
                else
                    test $npos = 0; and set first $w
                    set npos (math $npos + 1)
                end
        end
    end
    echo $npos
    echo $cmdpath
    echo $first
end

# $argv[1] = command path: succeeds when the words before the cursor are that command (and its flags or arguments).
function __taskctl_is
    set -l state (__taskctl_state)
    test "$state[2]" = "$argv[1]"
end

# $argv = command path, index[, + or =[, first]]: succeeds when the word at the cursor is that positional argument
# (+: or a later one; first: and the first positional argument is that word).
function __taskctl_arg
    set -l state (__taskctl_state)
    test "$state[2]" = "$argv[1]"; or return 1
    test "$argv[3]" = "+"; and test $state[1] -ge $argv[2]; and return 0
    test $state[1] -eq $argv[2]; or return 1
    test -z "$argv[4]"; or test "$state[3]" = "$argv[4]"
end

# Service names or recent task ids (with a description) from the local cache.
function __taskctl_dynamic
    command taskctl --request-timeout 1500ms __complete $argv[1] 2>/dev/null
end

# --report values: github, or junit= and a file.
function __taskctl_report
    set -l token (string replace -r -- '^--report=' '' (commandline -ct))
    if string match -q -- 'junit=*' $token
        __fish_complete_path (string replace -- 'junit=' '' $token) | string replace -r -- '^' 'junit='
    else
        printf '%s\n' github junit=
    end
end

complete -c taskctl -f
complete -c taskctl -l profile -x -d 'config profile to use (env TASKCTL_PROFILE)'
complete -c taskctl -l base-url -x -d 'API base URL (env TASKCTL_BASE_URL)'
complete -c taskctl -l api-key-file -r -F -d 'read the API key from a file (- = stdin); there is no flag that takes the key itself'
complete -c taskctl -s o -l output -x -a 'table tsv csv json ndjson' -d 'output format'
complete -c taskctl -l json -d 'same as -o json'
complete -c taskctl -l no-color -d 'disable colour (also NO_COLOR, TERM=dumb)'
complete -c taskctl -s q -l quiet -d 'print only what the next command takes: ids, one a line'
complete -c taskctl -s v -l verbose -d 'trace HTTP requests on stderr (secrets redacted)'
complete -c taskctl -l request-timeout -x -d 'budget of one request, every attempt included, e.g. 20s'
complete -c taskctl -l no-input -d 'never prompt'
complete -c taskctl -l ci -d 'CI mode (also when CI is set): no spinners or prompts, timestamped progress'
complete -c taskctl -l sandbox -d 'start a local sandbox service for this one invocation and talk to it'
complete -c taskctl -s h -l help -d 'show help'
complete -c taskctl -n '__taskctl_is \'\'' -l version -d 'print the version'
complete -c taskctl -n '__taskctl_is \'\'' -a 'services' -d 'list services with their price per item'
complete -c taskctl -n '__taskctl_is \'\'' -a 'balance' -d 'show the coin balance'
complete -c taskctl -n '__taskctl_is \'\'' -a 'list' -d 'list tasks, newest first as the service returns them: one page, --all, or a search with filters'
complete -c taskctl -n '__taskctl_is \'\'' -a 'ls' -d 'list tasks, newest first as the service returns them: one page, --all, or a search with filters'
complete -c taskctl -n '__taskctl_is \'\'' -a 'show' -d 'show tasks with their item results'
complete -c taskctl -n '__taskctl_is \'\'' -a 'get' -d 'show tasks with their item results'
complete -c taskctl -n '__taskctl_is \'\'' -a 'create' -d 'create a task: a service plus items from arguments, files (-f) or piped stdin'
complete -c taskctl -n '__taskctl_is \'\'' -a 'retry' -d 'create a new task from the items of tasks that did not complete'
complete -c taskctl -n '__taskctl_is \'\'' -a 'resume' -d 'continue an interrupted job (a create or retry stopped by Ctrl-C, a kill, a refusal); never resends a chunk that has a task'
complete -c taskctl -n '__taskctl_is \'\'' -a 'jobs' -d 'this machine\'s jobs (every create that may send is one), newest first, and the disk they use'
complete -c taskctl -n '__taskctl_is \'\'' -a 'diff' -d 'what changed, item by item, between two runs (exit 0 the same, 15 different)'
complete -c taskctl -n '__taskctl_is \'\'' -a 'wait' -d 'block until tasks finish; the exit code tells how they ended'
complete -c taskctl -n '__taskctl_is \'\'' -a 'watch' -d 'stream task status changes as they happen (human lines, or NDJSON shaped like webhook events)'
complete -c taskctl -n '__taskctl_is \'\'' -a 'api' -d 'send a request to any API path and print the response body'
complete -c taskctl -n '__taskctl_is \'\'' -a 'auth' -d 'store, inspect and remove the API key'
complete -c taskctl -n '__taskctl_is \'\'' -a 'config' -d 'read and write settings in the config file (per profile)'
complete -c taskctl -n '__taskctl_is \'\'' -a 'webhook' -d 'receive webhook events on this machine, or send a test event'
complete -c taskctl -n '__taskctl_is \'\'' -a 'sandbox' -d 'run the local sandbox service: the whole API with fake data, no account, no network'
complete -c taskctl -n '__taskctl_is \'\'' -a 'completion' -d 'print the shell completion script (bash, zsh or fish)'
complete -c taskctl -n '__taskctl_is \'\'' -a 'help' -d 'display help for command'
complete -c taskctl -n '__taskctl_is \'services\'' -l columns -x -a 'service display_name pricing currency description' -d 'only these columns, in this order (table, tsv, csv)'
complete -c taskctl -n '__taskctl_is \'services\'' -l wide -d 'every column at full width, whatever the terminal width'
complete -c taskctl -n '__taskctl_is \'list\'' -l page -x -d 'page to read'
complete -c taskctl -n '__taskctl_is \'list\'' -l per-page -x -d 'tasks per page, 1..100 (default: 25; 100 with --all or a filter)'
complete -c taskctl -n '__taskctl_is \'list\'' -l all -d 'read every page (from --page on), streaming; with a filter, every match'
complete -c taskctl -n '__taskctl_is \'list\'' -l status -x -a 'pending processing completed failed' -d 'only tasks in this status, repeatable or comma-separated: pending, processing, completed, failed, a word for an ended task (cancelled, expired, ...), or a group: working (running), waiting, unfinished, ended'
complete -c taskctl -n '__taskctl_is \'list\'' -l service -x -a '(__taskctl_dynamic services)' -d 'only tasks of this service (repeatable or comma-separated)'
complete -c taskctl -n '__taskctl_is \'list\'' -l limit -x -d 'print at most this many tasks, reading on past one page when it is more; a search stops there (default for a search: --per-page, else 25)'
complete -c taskctl -n '__taskctl_is \'list\'' -l since -x -d 'only tasks created in the last DURATION (30m, 24h) or since an ISO time'
complete -c taskctl -n '__taskctl_is \'list\'' -l until -x -d 'only tasks created at least DURATION ago, or until an ISO time'
complete -c taskctl -n '__taskctl_is \'list\'' -l columns -x -a 'id service status total_items cost created_at finished_at completed_items failed_items' -d 'only these columns, in this order (table, tsv, csv)'
complete -c taskctl -n '__taskctl_is \'list\'' -l wide -d 'every column at full width, whatever the terminal width'
complete -c taskctl -n '__taskctl_is \'show\'' -l job -r -F -a '(__taskctl_dynamic jobs)' -d 'every task of a job (its id, see taskctl jobs, or its journal file), in chunk order, streamed'
complete -c taskctl -n '__taskctl_is \'show\'' -l error -x -d 'only items that did not complete whose error contains TEXT (what `retry --error` sends); repeatable'
complete -c taskctl -n '__taskctl_is \'show\'' -l items-status -x -a 'completed failed' -d 'only completed items, or (failed) only those that did not complete'
complete -c taskctl -n '__taskctl_is \'show\'' -l columns -x -d 'only these columns, in this order (table, tsv, csv)'
complete -c taskctl -n '__taskctl_is \'show\'' -l wide -d 'every column at full width, whatever the terminal width'
complete -c taskctl -n '__taskctl_is \'show\'' -l report -x -a '(__taskctl_report)' -d 'write a report when done: junit=FILE or github (job summary + annotations); repeatable'
complete -c taskctl -n '__taskctl_arg \'show\' 0 +' -x -k -a '(__taskctl_dynamic tasks)'
complete -c taskctl -n '__taskctl_is \'create\'' -s f -l file -r -F -d 'read items from a file (- = stdin); repeatable'
complete -c taskctl -n '__taskctl_is \'create\'' -l format -x -a 'lines json ndjson csv' -d 'item file format'
complete -c taskctl -n '__taskctl_is \'create\'' -l column -x -d 'csv column or json property holding the item'
complete -c taskctl -n '__taskctl_is \'create\'' -l skip-invalid -d 'drop invalid items with a warning instead of refusing (exit 3)'
complete -c taskctl -n '__taskctl_is \'create\'' -l no-validate -d 'send items as read (edge spaces trimmed), without per-service checks, case folding or punycode'
complete -c taskctl -n '__taskctl_is \'create\'' -l keep-duplicates -d 'send duplicate items (they are removed by default)'
complete -c taskctl -n '__taskctl_is \'create\'' -l dry-run -d 'validate and price the items, show the balance after; create nothing'
complete -c taskctl -n '__taskctl_is \'create\'' -l reuse-window -x -d 'reuse a task with the same service and items created within this window (e.g. 1h); never a failed one'
complete -c taskctl -n '__taskctl_is \'create\'' -l wait -d 'then wait for the task(s) like `taskctl wait`'
complete -c taskctl -n '__taskctl_is \'create\'' -l journal -x -d 'record the job in FILE (JSON lines, fsynced) so that `taskctl resume FILE` continues it after a crash'
complete -c taskctl -n '__taskctl_is \'create\'' -l max-cost -x -d 'refuse (exit 6) when the estimate is above this'
complete -c taskctl -n '__taskctl_is \'create\'' -s y -l yes -d 'do not ask for confirmation above the confirm-above setting'
complete -c taskctl -n '__taskctl_is \'create\'' -l chunk-size -x -d 'split into several tasks of at most n items, created in order'
complete -c taskctl -n '__taskctl_is \'create\'' -l interval -x -d 'poll interval while a task\'s end cannot be predicted; grows x1.5 to 30s while nothing changes'
complete -c taskctl -n '__taskctl_is \'create\'' -l timeout -x -d 'give up after this long (exit 124); 0 = never'
complete -c taskctl -n '__taskctl_is \'create\'' -l outage-tolerance -x -d 'give up when reads keep failing this long from the first that failed: exit 8, or 7 after 429s (default: 2m)'
complete -c taskctl -n '__taskctl_is \'create\'' -l any -d 'return when the first task reaches the state'
complete -c taskctl -n '__taskctl_is \'create\'' -l until -x -a 'processing completed' -d 'wait for this state instead of the end'
complete -c taskctl -n '__taskctl_is \'create\'' -l allow-item-failures -d 'exit 0 (not 11) when tasks completed with some failed items'
complete -c taskctl -n '__taskctl_is \'create\'' -l results -d 'end with the item results as `taskctl show` prints them, also with -o json|ndjson|tsv|csv'
complete -c taskctl -n '__taskctl_is \'create\'' -l no-results -d 'end with the task records only (on a terminal, one task ends with its item table)'
complete -c taskctl -n '__taskctl_is \'create\'' -l wide -d 'every column at full width, whatever the terminal width'
complete -c taskctl -n '__taskctl_is \'create\'' -l report -x -a '(__taskctl_report)' -d 'write a report when done: junit=FILE or github (job summary + annotations); repeatable'
complete -c taskctl -n '__taskctl_arg \'create\' 0' -x -a '(__taskctl_dynamic services)'
complete -c taskctl -n '__taskctl_is \'retry\'' -l job -r -F -a '(__taskctl_dynamic jobs)' -d 'the tasks of a job (its id, see taskctl jobs, or its journal file): re-run what did not complete'
complete -c taskctl -n '__taskctl_is \'retry\'' -l journal -x -d 'keep the retry\'s journal (a new job) in FILE, its items in FILE.input'
complete -c taskctl -n '__taskctl_is \'retry\'' -l error -x -d 'only items whose error (else their task\'s) contains TEXT, case-insensitively; repeatable'
complete -c taskctl -n '__taskctl_is \'retry\'' -l dry-run -d 'price the items to retry, show the balance after; create nothing'
complete -c taskctl -n '__taskctl_is \'retry\'' -l reuse-window -x -d 'reuse a retry task with the same service and items created within this window'
complete -c taskctl -n '__taskctl_is \'retry\'' -l no-reuse -d 'always create a new task, even when the same retry was made within the window'
complete -c taskctl -n '__taskctl_is \'retry\'' -l keep-duplicates -d 'send an item as often as it failed across the tasks (removed by default)'
complete -c taskctl -n '__taskctl_is \'retry\'' -l wait -d 'then wait for the new task(s) like `taskctl wait`'
complete -c taskctl -n '__taskctl_is \'retry\'' -l max-cost -x -d 'refuse (exit 6) when the estimate is above this'
complete -c taskctl -n '__taskctl_is \'retry\'' -s y -l yes -d 'do not ask for confirmation above the confirm-above setting'
complete -c taskctl -n '__taskctl_is \'retry\'' -l chunk-size -x -d 'split into several tasks of at most n items, created in order'
complete -c taskctl -n '__taskctl_is \'retry\'' -l interval -x -d 'poll interval while a task\'s end cannot be predicted; grows x1.5 to 30s while nothing changes'
complete -c taskctl -n '__taskctl_is \'retry\'' -l timeout -x -d 'give up after this long (exit 124); 0 = never'
complete -c taskctl -n '__taskctl_is \'retry\'' -l outage-tolerance -x -d 'give up when reads keep failing this long from the first that failed: exit 8, or 7 after 429s (default: 2m)'
complete -c taskctl -n '__taskctl_is \'retry\'' -l any -d 'return when the first task reaches the state'
complete -c taskctl -n '__taskctl_is \'retry\'' -l until -x -a 'processing completed' -d 'wait for this state instead of the end'
complete -c taskctl -n '__taskctl_is \'retry\'' -l allow-item-failures -d 'exit 0 (not 11) when tasks completed with some failed items'
complete -c taskctl -n '__taskctl_is \'retry\'' -l results -d 'end with the item results as `taskctl show` prints them, also with -o json|ndjson|tsv|csv'
complete -c taskctl -n '__taskctl_is \'retry\'' -l no-results -d 'end with the task records only (on a terminal, one task ends with its item table)'
complete -c taskctl -n '__taskctl_is \'retry\'' -l wide -d 'every column at full width, whatever the terminal width'
complete -c taskctl -n '__taskctl_is \'retry\'' -l report -x -a '(__taskctl_report)' -d 'write a report when done: junit=FILE or github (job summary + annotations); repeatable'
complete -c taskctl -n '__taskctl_is \'resume\'' -l adopt -x -d 'settle a chunk the job stopped on (exit 9), or one whose task is not its own: it is task ID; repeatable'
complete -c taskctl -n '__taskctl_is \'resume\'' -l resend -x -d 'settle a chunk the job stopped on (exit 9): send it again, unless the task list shows a task of it not named before (exit 9); repeatable'
complete -c taskctl -n '__taskctl_is \'resume\'' -l ignore-job -r -F -a '(__taskctl_dynamic jobs)' -d 'go on without waiting for a job that took over items of this one and has not finished (exit 9), unless its request in doubt may have made them; what it creates of them later is paid twice; kept in the journal; repeatable'
complete -c taskctl -n '__taskctl_is \'resume\'' -l skip-refused -d 'leave the chunks whose items the service refused (exit 3) without a task, and send the rest'
complete -c taskctl -n '__taskctl_is \'resume\'' -l reuse-window -x -d 'look for a task of each chunk\'s items created within this window before sending it (default: the job\'s own)'
complete -c taskctl -n '__taskctl_is \'resume\'' -l no-reuse -d 'send without looking for a task of the items first, whatever the job\'s --reuse-window'
complete -c taskctl -n '__taskctl_is \'resume\'' -l forget-gone-journal -d 'go on though the journal this job was last run from (a copy) is gone: what its run created may be bought again; kept once the run sends'
complete -c taskctl -n '__taskctl_is \'resume\'' -l max-cost -x -d 'refuse (exit 6) when the remaining estimate is above this'
complete -c taskctl -n '__taskctl_is \'resume\'' -s y -l yes -d 'do not ask for confirmation above the confirm-above setting'
complete -c taskctl -n '__taskctl_is \'resume\'' -l wait -d 'then wait for every task of the job like `taskctl wait`'
complete -c taskctl -n '__taskctl_is \'resume\'' -l interval -x -d 'poll interval while a task\'s end cannot be predicted; grows x1.5 to 30s while nothing changes'
complete -c taskctl -n '__taskctl_is \'resume\'' -l timeout -x -d 'give up after this long (exit 124); 0 = never'
complete -c taskctl -n '__taskctl_is \'resume\'' -l outage-tolerance -x -d 'give up when reads keep failing this long from the first that failed: exit 8, or 7 after 429s (default: 2m)'
complete -c taskctl -n '__taskctl_is \'resume\'' -l any -d 'return when the first task reaches the state'
complete -c taskctl -n '__taskctl_is \'resume\'' -l until -x -a 'processing completed' -d 'wait for this state instead of the end'
complete -c taskctl -n '__taskctl_is \'resume\'' -l allow-item-failures -d 'exit 0 (not 11) when tasks completed with some failed items'
complete -c taskctl -n '__taskctl_is \'resume\'' -l results -d 'end with the item results as `taskctl show` prints them, also with -o json|ndjson|tsv|csv'
complete -c taskctl -n '__taskctl_is \'resume\'' -l no-results -d 'end with the task records only (on a terminal, one task ends with its item table)'
complete -c taskctl -n '__taskctl_is \'resume\'' -l wide -d 'every column at full width, whatever the terminal width'
complete -c taskctl -n '__taskctl_is \'resume\'' -l report -x -a '(__taskctl_report)' -d 'write a report when done: junit=FILE or github (job summary + annotations); repeatable'
complete -c taskctl -n '__taskctl_arg \'resume\' 0' -r -F -a '(__taskctl_dynamic jobs)'
complete -c taskctl -n '__taskctl_is \'jobs\'' -l limit -x -d 'print at most this many jobs'
complete -c taskctl -n '__taskctl_is \'jobs\'' -l all -d 'every job on this machine, not only the current profile\'s and base URL\'s'
complete -c taskctl -n '__taskctl_is \'jobs\'' -l prune -d 'remove finished and superseded jobs\' journals, and those of creates killed before they recorded their job, from the state directory now (never an unfinished job\'s, nor one a running taskctl holds: next time)'
complete -c taskctl -n '__taskctl_is \'jobs\'' -l columns -x -a 'id started service items chunks in_doubt state base_url journal' -d 'only these columns, in this order (table, tsv, csv)'
complete -c taskctl -n '__taskctl_is \'jobs\'' -l wide -d 'every column at full width, whatever the terminal width'
complete -c taskctl -n '__taskctl_is \'diff\'' -l fields -x -d 'compare only these fields, comma-separated or repeated (default: status and every result field; error only when named)'
complete -c taskctl -n '__taskctl_arg \'diff\' 0' -r -F
complete -c taskctl -n '__taskctl_arg \'diff\' 1' -r -F
complete -c taskctl -n '__taskctl_is \'wait\'' -l job -r -F -a '(__taskctl_dynamic jobs)' -d 'every task of a job (its id, see taskctl jobs, or its journal file)'
complete -c taskctl -n '__taskctl_is \'wait\'' -l interval -x -d 'poll interval while a task\'s end cannot be predicted; grows x1.5 to 30s while nothing changes'
complete -c taskctl -n '__taskctl_is \'wait\'' -l timeout -x -d 'give up after this long (exit 124); 0 = never'
complete -c taskctl -n '__taskctl_is \'wait\'' -l outage-tolerance -x -d 'give up when reads keep failing this long from the first that failed: exit 8, or 7 after 429s (default: 2m)'
complete -c taskctl -n '__taskctl_is \'wait\'' -l any -d 'return when the first task reaches the state'
complete -c taskctl -n '__taskctl_is \'wait\'' -l until -x -a 'processing completed' -d 'wait for this state instead of the end'
complete -c taskctl -n '__taskctl_is \'wait\'' -l allow-item-failures -d 'exit 0 (not 11) when tasks completed with some failed items'
complete -c taskctl -n '__taskctl_is \'wait\'' -l results -d 'end with the item results as `taskctl show` prints them, also with -o json|ndjson|tsv|csv'
complete -c taskctl -n '__taskctl_is \'wait\'' -l no-results -d 'end with the task records only (on a terminal, one task ends with its item table)'
complete -c taskctl -n '__taskctl_is \'wait\'' -l wide -d 'every column at full width, whatever the terminal width'
complete -c taskctl -n '__taskctl_is \'wait\'' -l report -x -a '(__taskctl_report)' -d 'write a report when done: junit=FILE or github (job summary + annotations); repeatable'
complete -c taskctl -n '__taskctl_arg \'wait\' 0 +' -x -k -a '(__taskctl_dynamic tasks)'
complete -c taskctl -n '__taskctl_is \'watch\'' -l job -r -F -a '(__taskctl_dynamic jobs)' -d 'every task of a job (its id, see taskctl jobs, or its journal file)'
complete -c taskctl -n '__taskctl_is \'watch\'' -l follow -d 'with no ids: keep going after the current tasks finish, picking up new ones'
complete -c taskctl -n '__taskctl_is \'watch\'' -l interval -x -d 'poll interval while a task\'s end cannot be predicted; grows x1.5 to 30s while nothing changes'
complete -c taskctl -n '__taskctl_is \'watch\'' -l timeout -x -d 'stop after this long (exit 124); 0 = never'
complete -c taskctl -n '__taskctl_is \'watch\'' -l outage-tolerance -x -d 'give up when reads keep failing this long from the first that failed: exit 8, or 7 after 429s (default: 2m)'
complete -c taskctl -n '__taskctl_arg \'watch\' 0 +' -x -k -a '(__taskctl_dynamic tasks)'
complete -c taskctl -n '__taskctl_is \'api\'' -s f -l raw-field -x -d 'a string field: query for GET/DELETE, JSON body for POST/PUT/PATCH; key[] appends to a list; repeatable'
complete -c taskctl -n '__taskctl_is \'api\'' -s F -l field -x -d 'a typed field: numbers, true, false and null as JSON, @file (or @-) for a file’s text; repeatable'
complete -c taskctl -n '__taskctl_is \'api\'' -l input -r -F -d 'JSON request body from a file (- = stdin), checked before sending; fields go to the query'
complete -c taskctl -n '__taskctl_is \'api\'' -s i -l include -d 'print the HTTP status line and response headers (secrets redacted) before the body'
complete -c taskctl -n '__taskctl_is \'auth\'' -a 'login' -d 'verify an API key with GET /balance and save it (with the base URL) in the profile'
complete -c taskctl -n '__taskctl_is \'auth\'' -a 'status' -d 'show where the key comes from (masked), the base URL, whether the key works, and the rate-limit budget'
complete -c taskctl -n '__taskctl_is \'auth\'' -a 'logout' -d 'remove the profile\'s stored API key'
complete -c taskctl -n '__taskctl_is \'auth\'' -a 'help' -d 'display help for command'
complete -c taskctl -n '__taskctl_is \'auth login\'' -l with-key -d 'read the key from stdin instead of a hidden prompt'
complete -c taskctl -n '__taskctl_arg \'auth help\' 0' -x -a 'login status logout'
complete -c taskctl -n '__taskctl_is \'config\'' -a 'get' -d 'print the effective value of a setting, its default when nothing sets it'
complete -c taskctl -n '__taskctl_is \'config\'' -a 'set' -d 'store a setting in the profile'
complete -c taskctl -n '__taskctl_is \'config\'' -a 'unset' -d 'remove a setting from the profile'
complete -c taskctl -n '__taskctl_is \'config\'' -a 'list' -d 'list every setting with its effective value and where it comes from'
complete -c taskctl -n '__taskctl_is \'config\'' -a 'path' -d 'print the config file path'
complete -c taskctl -n '__taskctl_is \'config\'' -a 'help' -d 'display help for command'
complete -c taskctl -n '__taskctl_arg \'config get\' 0' -x -a 'profile base-url output confirm-above auth-scheme request-timeout outage-tolerance job-retention api-key'
complete -c taskctl -n '__taskctl_arg \'config set\' 0' -x -a 'base-url output confirm-above auth-scheme request-timeout outage-tolerance job-retention'
complete -c taskctl -n '__taskctl_arg \'config set\' 1 = \'output\'' -x -a 'table tsv csv json ndjson'
complete -c taskctl -n '__taskctl_arg \'config set\' 1 = \'auth-scheme\'' -x -a 'x-api-key bearer'
complete -c taskctl -n '__taskctl_arg \'config unset\' 0' -x -a 'base-url output confirm-above auth-scheme request-timeout outage-tolerance job-retention'
complete -c taskctl -n '__taskctl_arg \'config help\' 0' -x -a 'get set unset list path'
complete -c taskctl -n '__taskctl_is \'webhook\'' -a 'listen' -d 'run a local webhook receiver: verify the signature, print each event once, forward or exec'
complete -c taskctl -n '__taskctl_is \'webhook\'' -a 'simulate' -d 'send a correctly signed event built from a real task to a URL (a delivery of its own, marked simulated)'
complete -c taskctl -n '__taskctl_is \'webhook\'' -a 'help' -d 'display help for command'
complete -c taskctl -n '__taskctl_is \'webhook listen\'' -l port -x -d 'port to listen on (0 = any free port)'
complete -c taskctl -n '__taskctl_is \'webhook listen\'' -l host -x -d 'address to bind'
complete -c taskctl -n '__taskctl_is \'webhook listen\'' -l path -x -d 'path that accepts deliveries'
complete -c taskctl -n '__taskctl_is \'webhook listen\'' -l forward-to -x -d 're-POST each event here; the service gets 200 only after its 2xx (else 502)'
complete -c taskctl -n '__taskctl_is \'webhook listen\'' -l exec -x -d 'run this shell command per event, with the event JSON on stdin'
complete -c taskctl -n '__taskctl_is \'webhook listen\'' -l exec-concurrency -x -d 'commands running at once (1 = one at a time, in order)'
complete -c taskctl -n '__taskctl_is \'webhook listen\'' -l queue -x -d 'events waiting for --exec at most; a full queue answers 503'
complete -c taskctl -n '__taskctl_is \'webhook listen\'' -l max-body -x -d 'largest event body (413 beyond): 1MiB, 256KiB, bytes'
complete -c taskctl -n '__taskctl_is \'webhook listen\'' -l no-dedupe -d 'hand repeat deliveries of an event on again (default: printed as duplicates only)'
complete -c taskctl -n '__taskctl_is \'webhook listen\'' -l spool -x -d 'make acknowledged events durable (fsync before the 200; rerun at the next start)'
complete -c taskctl -n '__taskctl_is \'webhook listen\'' -l catch-up -x -d 'first hand on one event per task created within DURATION (synthesised)'
complete -c taskctl -n '__taskctl_is \'webhook listen\'' -l catch-up-task -x -d 'first hand on the event of this task (repeatable)'
complete -c taskctl -n '__taskctl_is \'webhook listen\'' -l no-wire -d 'leave the sandbox\'s webhook URL alone (default: set to this listener, put back at exit)'
complete -c taskctl -n '__taskctl_is \'webhook simulate\'' -l event -x -a 'processing completed failed' -d 'event to send'
complete -c taskctl -n '__taskctl_is \'webhook simulate\'' -l to -x -d 'receiver URL'
complete -c taskctl -n '__taskctl_arg \'webhook simulate\' 0' -x -k -a '(__taskctl_dynamic tasks)'
complete -c taskctl -n '__taskctl_arg \'webhook help\' 0' -x -a 'listen simulate'
complete -c taskctl -n '__taskctl_is \'sandbox\'' -l port -x -d 'port to listen on (0 = any free port)'
complete -c taskctl -n '__taskctl_is \'sandbox\'' -l host -x -d 'address to bind (loopback unless you mean it)'
complete -c taskctl -n '__taskctl_is \'sandbox\'' -l api-key -x -d 'the sandbox API key'
complete -c taskctl -n '__taskctl_is \'sandbox\'' -l balance -x -d 'starting balance'
complete -c taskctl -n '__taskctl_is \'sandbox\'' -l item-ms -x -d 'simulated work per item in milliseconds (slow-* items take 10x)'
complete -c taskctl -n '__taskctl_is \'sandbox\'' -l rate-limit -x -d 'requests per window per key (0 = off)'
complete -c taskctl -n '__taskctl_is \'sandbox\'' -l rate-window -x -d 'length of the rate-limit window (whole seconds)'
complete -c taskctl -n '__taskctl_is \'sandbox\'' -l max-items -x -d 'maximum items per task'
complete -c taskctl -n '__taskctl_is \'sandbox\'' -l webhook-url -x -d 'deliver webhook events to this URL (http:// allowed on loopback)'
complete -c taskctl -n '__taskctl_is \'sandbox\'' -l webhook-time-scale -x -d 'multiply the webhook redelivery schedule (0.01 = 100x faster)'
complete -c taskctl -n '__taskctl_is \'sandbox\'' -l seed -x -d 'seed for deterministic results'
complete -c taskctl -n '__taskctl_is \'sandbox\'' -l state -r -F -d 'persist and reload tasks, balance and keys in this JSON file'
complete -c taskctl -n '__taskctl_is \'sandbox\'' -l dialect -x -d 'answer in a variant of the API the contract allows (repeatable; \'all\' for every one, \'list\' to see them)'
complete -c taskctl -n '__taskctl_is \'sandbox\'' -l clock-skew -x -d 'run the sandbox\'s clock this far from this machine\'s (e.g. 3s, -3s): timestamps, Date headers, rate-limit windows'
complete -c taskctl -n '__taskctl_arg \'completion\' 0' -x -a 'bash zsh fish'
complete -c taskctl -n '__taskctl_arg \'help\' 0' -x -a 'services balance list show create retry resume jobs diff wait watch api auth config webhook sandbox completion'

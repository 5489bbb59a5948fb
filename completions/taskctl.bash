# bash completion for taskctl
# Generated from the command tree by `npm run completions` (also printed by `taskctl completion SHELL`); do not edit.
# Install: mkdir -p ~/.local/share/bash-completion/completions && taskctl completion bash > ~/.local/share/bash-completion/completions/taskctl
#      or: echo 'source <(taskctl completion bash)' >> ~/.bashrc

# $1 = command path: sets __taskctl_r to its subcommands and their aliases.
__taskctl_subcommands() {
  case $1 in
    '') __taskctl_r='services balance list ls show get create retry resume jobs diff wait watch api auth config webhook sandbox completion help' ;;
    'auth') __taskctl_r='login status logout help' ;;
    'config') __taskctl_r='get set unset list path help' ;;
    'webhook') __taskctl_r='listen simulate help' ;;
    *) __taskctl_r='' ;;
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

# $1 = command path: sets __taskctl_r to the flags it accepts (its own, then the global ones).
__taskctl_options() {
  case $1 in
    '') __taskctl_r='--version' ;;
    'services') __taskctl_r='--columns --wide' ;;
    'list') __taskctl_r='--page --per-page --all --status --service --limit --since --until --columns --wide' ;;
    'show') __taskctl_r='--job --error --items-status --columns --wide --report' ;;
    'create') __taskctl_r='-f --file --format --column --skip-invalid --no-validate --keep-duplicates --dry-run --reuse-window --wait --journal --max-cost -y --yes --chunk-size --interval --timeout --outage-tolerance --any --until --allow-item-failures --results --no-results --wide --report' ;;
    'retry') __taskctl_r='--job --journal --error --dry-run --reuse-window --no-reuse --keep-duplicates --wait --max-cost -y --yes --chunk-size --interval --timeout --outage-tolerance --any --until --allow-item-failures --results --no-results --wide --report' ;;
    'resume') __taskctl_r='--adopt --resend --ignore-job --skip-refused --reuse-window --no-reuse --forget-gone-journal --max-cost -y --yes --wait --interval --timeout --outage-tolerance --any --until --allow-item-failures --results --no-results --wide --report' ;;
    'jobs') __taskctl_r='--limit --all --prune --columns --wide' ;;
    'diff') __taskctl_r='--fields' ;;
    'wait') __taskctl_r='--job --interval --timeout --outage-tolerance --any --until --allow-item-failures --results --no-results --wide --report' ;;
    'watch') __taskctl_r='--job --follow --interval --timeout --outage-tolerance' ;;
    'api') __taskctl_r='-f --raw-field -F --field --input -i --include' ;;
    'auth login') __taskctl_r='--with-key' ;;
    'webhook listen') __taskctl_r='--port --host --path --forward-to --exec --exec-concurrency --queue --max-body --no-dedupe --spool --catch-up --catch-up-task --no-wire' ;;
    'webhook simulate') __taskctl_r='--event --to' ;;
    'sandbox') __taskctl_r='--port --host --api-key --balance --item-ms --rate-limit --rate-window --max-items --webhook-url --webhook-time-scale --seed --state --dialect --clock-skew' ;;
    *) __taskctl_r='' ;;
  esac
  __taskctl_r+=' --profile --base-url --api-key-file -o --output --json --no-color -q --quiet -v --verbose --request-timeout --no-input --ci --sandbox -h --help'
}

# $1 = command path, $2 = flag: sets __taskctl_kind (choices, file, services, tasks, jobs, report, none) and, for choices,
# __taskctl_r; fails when the flag takes no value.
__taskctl_value() {
  case "$1|$2" in
    'services|--columns') __taskctl_kind=choices __taskctl_r='service display_name pricing currency description' ;;
    'list|--page') __taskctl_kind=none ;;
    'list|--per-page') __taskctl_kind=none ;;
    'list|--status') __taskctl_kind=choices __taskctl_r='pending processing completed failed' ;;
    'list|--service') __taskctl_kind=services ;;
    'list|--limit') __taskctl_kind=none ;;
    'list|--since') __taskctl_kind=none ;;
    'list|--until') __taskctl_kind=none ;;
    'list|--columns') __taskctl_kind=choices __taskctl_r='id service status total_items cost created_at finished_at completed_items failed_items' ;;
    'show|--job') __taskctl_kind=jobs ;;
    'show|--error') __taskctl_kind=none ;;
    'show|--items-status') __taskctl_kind=choices __taskctl_r='completed failed' ;;
    'show|--columns') __taskctl_kind=none ;;
    'show|--report') __taskctl_kind=report ;;
    'create|-f') __taskctl_kind=file ;;
    'create|--file') __taskctl_kind=file ;;
    'create|--format') __taskctl_kind=choices __taskctl_r='lines json ndjson csv' ;;
    'create|--column') __taskctl_kind=none ;;
    'create|--reuse-window') __taskctl_kind=none ;;
    'create|--journal') __taskctl_kind=none ;;
    'create|--max-cost') __taskctl_kind=none ;;
    'create|--chunk-size') __taskctl_kind=none ;;
    'create|--interval') __taskctl_kind=none ;;
    'create|--timeout') __taskctl_kind=none ;;
    'create|--outage-tolerance') __taskctl_kind=none ;;
    'create|--until') __taskctl_kind=choices __taskctl_r='processing completed' ;;
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
    'retry|--until') __taskctl_kind=choices __taskctl_r='processing completed' ;;
    'retry|--report') __taskctl_kind=report ;;
    'resume|--adopt') __taskctl_kind=none ;;
    'resume|--resend') __taskctl_kind=none ;;
    'resume|--ignore-job') __taskctl_kind=jobs ;;
    'resume|--reuse-window') __taskctl_kind=none ;;
    'resume|--max-cost') __taskctl_kind=none ;;
    'resume|--interval') __taskctl_kind=none ;;
    'resume|--timeout') __taskctl_kind=none ;;
    'resume|--outage-tolerance') __taskctl_kind=none ;;
    'resume|--until') __taskctl_kind=choices __taskctl_r='processing completed' ;;
    'resume|--report') __taskctl_kind=report ;;
    'jobs|--limit') __taskctl_kind=none ;;
    'jobs|--columns') __taskctl_kind=choices __taskctl_r='id started service items chunks in_doubt state base_url journal' ;;
    'diff|--fields') __taskctl_kind=none ;;
    'wait|--job') __taskctl_kind=jobs ;;
    'wait|--interval') __taskctl_kind=none ;;
    'wait|--timeout') __taskctl_kind=none ;;
    'wait|--outage-tolerance') __taskctl_kind=none ;;
    'wait|--until') __taskctl_kind=choices __taskctl_r='processing completed' ;;
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
    'webhook simulate|--event') __taskctl_kind=choices __taskctl_r='processing completed failed' ;;
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
    *'|-o') __taskctl_kind=choices __taskctl_r='table tsv csv json ndjson' ;;
    *'|--output') __taskctl_kind=choices __taskctl_r='table tsv csv json ndjson' ;;
    *'|--request-timeout') __taskctl_kind=none ;;
    *) return 1 ;;
  esac
}

# $1 = command path, $2 = index of the positional argument, $3 = the first positional argument: sets __taskctl_kind
# (and __taskctl_r); fails when there is nothing to offer.
__taskctl_argument() {
  __taskctl_kind=''
  case $1 in
    'show') if (( $2 >= 0 )); then __taskctl_kind=tasks; fi ;;
    'create') if (( $2 == 0 )); then __taskctl_kind=services; fi ;;
    'resume') if (( $2 == 0 )); then __taskctl_kind=jobs; fi ;;
    'diff') if (( $2 == 0 )); then __taskctl_kind=file; elif (( $2 == 1 )); then __taskctl_kind=file; fi ;;
    'wait') if (( $2 >= 0 )); then __taskctl_kind=tasks; fi ;;
    'watch') if (( $2 >= 0 )); then __taskctl_kind=tasks; fi ;;
    'auth help') if (( $2 == 0 )); then __taskctl_kind=choices __taskctl_r='login status logout'; fi ;;
    'config get') if (( $2 == 0 )); then __taskctl_kind=choices __taskctl_r='profile base-url output confirm-above auth-scheme request-timeout outage-tolerance job-retention api-key'; fi ;;
    'config set') if (( $2 == 0 )); then __taskctl_kind=choices __taskctl_r='base-url output confirm-above auth-scheme request-timeout outage-tolerance job-retention'; elif (( $2 == 1 )); then case $3 in 'output') __taskctl_kind=choices __taskctl_r='table tsv csv json ndjson' ;; 'auth-scheme') __taskctl_kind=choices __taskctl_r='x-api-key bearer' ;; esac; fi ;;
    'config unset') if (( $2 == 0 )); then __taskctl_kind=choices __taskctl_r='base-url output confirm-above auth-scheme request-timeout outage-tolerance job-retention'; fi ;;
    'config help') if (( $2 == 0 )); then __taskctl_kind=choices __taskctl_r='get set unset list path'; fi ;;
    'webhook simulate') if (( $2 == 0 )); then __taskctl_kind=tasks; fi ;;
    'webhook help') if (( $2 == 0 )); then __taskctl_kind=choices __taskctl_r='listen simulate'; fi ;;
    'completion') if (( $2 == 0 )); then __taskctl_kind=choices __taskctl_r='bash zsh fish'; fi ;;
    'help') if (( $2 == 0 )); then __taskctl_kind=choices __taskctl_r='services balance list show create retry resume jobs diff wait watch api auth config webhook sandbox completion'; fi ;;
  esac
  [[ -n $__taskctl_kind ]]
}

# $1 = the value typed so far: fills __taskctl_cands with full candidates for __taskctl_kind.
__taskctl_candidates() {
  local line
  __taskctl_cands=()
  case $__taskctl_kind in
    choices) read -r -a __taskctl_cands <<<"$__taskctl_r" ;;
    services) while IFS= read -r line; do [[ -n $line ]] && __taskctl_cands+=("$line"); done < <(taskctl --request-timeout 1500ms __complete services 2>/dev/null) ;;
    tasks)
      compopt -o nosort 2>/dev/null
      while IFS=$'\t' read -r line _; do [[ -n $line ]] && __taskctl_cands+=("$line"); done < <(taskctl --request-timeout 1500ms __complete tasks 2>/dev/null) ;;
    jobs) while IFS=$'\t' read -r line _; do [[ -n $line ]] && __taskctl_cands+=("$line"); done < <(taskctl --request-timeout 1500ms __complete jobs 2>/dev/null)
      compopt -o filenames 2>/dev/null
      while IFS= read -r line; do __taskctl_cands+=("$line"); done < <(compgen -f -- "$1") ;;
    file)
      compopt -o filenames 2>/dev/null
      while IFS= read -r line; do __taskctl_cands+=("$line"); done < <(compgen -f -- "$1") ;;
    report)
      if [[ $1 == junit=* ]]; then
        compopt -o filenames 2>/dev/null
        while IFS= read -r line; do __taskctl_cands+=("junit=$line"); done < <(compgen -f -- "${1#junit=}")
      else
        __taskctl_cands=(github junit=)
        [[ junit= == "$1"* && github != "$1"* ]] && compopt -o nospace 2>/dev/null
      fi ;;
  esac
}

_taskctl() {
  local i w cur rlword rlprefix value vprefix='' cmdpath='' flag='' first='' npos=0 dashdash=0
  local __taskctl_r='' __taskctl_kind=''
  local -a ws=() __taskctl_cands=()
  # bash splits `--output=json` at '=' (COMP_WORDBREAKS): join the pieces again, so each word is a shell word.
  for ((i = 0; i <= COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    if ((${#ws[@]} > 1)) && [[ $w == '=' || ${COMP_WORDS[i-1]} == '=' ]]; then
      ws[${#ws[@]}-1]+=$w
    else
      ws+=("$w")
    fi
  done
  cur=${ws[${#ws[@]}-1]}
  # What readline replaces is only the text after the last word break; replies drop the part before it.
  rlword=${COMP_WORDS[COMP_CWORD]}
  [[ $rlword == '=' ]] && rlword=''
  rlprefix=${cur%"$rlword"}

  for ((i = 1; i < ${#ws[@]} - 1; i++)); do
    w=${ws[i]}
    if [[ -n $flag ]]; then flag=''; continue; fi
    if ((dashdash)); then ((npos == 0)) && first=$w; npos=$((npos + 1)); continue; fi
    case $w in
      --) dashdash=1 ;;
      --*=*) ;;
      -?*) __taskctl_value "$cmdpath" "$w" && flag=$w ;;
      *) if ((npos == 0)) && __taskctl_resolve "$cmdpath" "$w"; then cmdpath=$__taskctl_r; else ((npos == 0)) && first=$w; npos=$((npos + 1)); fi ;;
    esac
  done

  value=$cur
  if [[ -n $flag ]]; then
    __taskctl_value "$cmdpath" "$flag"
  elif ((!dashdash)) && [[ $cur == --*=* ]]; then
    flag=${cur%%=*} value=${cur#*=} vprefix="${cur%%=*}="
    __taskctl_value "$cmdpath" "$flag" || return 0
  elif ((!dashdash)) && [[ $cur == -* ]]; then
    __taskctl_options "$cmdpath"
    __taskctl_kind=choices
  elif ((npos == 0 && !dashdash)) && __taskctl_subcommands "$cmdpath" && [[ -n $__taskctl_r ]]; then
    __taskctl_kind=choices
  elif ! __taskctl_argument "$cmdpath" "$npos" "$first"; then
    return 0
  fi
  [[ $__taskctl_kind == none ]] && return 0
  __taskctl_candidates "$value"
  COMPREPLY=()
  for w in "${__taskctl_cands[@]}"; do
    w=$vprefix$w
    [[ $w == "$cur"* ]] && COMPREPLY+=("${w#"$rlprefix"}")
  done
  return 0
}

complete -F _taskctl taskctl

/**
 * The bash script: the command tree as `case` tables plus one function, `_taskctl`, that walks COMP_WORDS to find the
 * command path, then offers subcommands, flags, flag values or positional values. Service names and task ids come
 * from `taskctl __complete services|tasks` (the local cache), so TAB never waits on the network once it is warm.
 * Works with plain bash 4+ (no bash-completion package needed); degrades quietly on bash 3.2.
 */
import type { CompletionModel, ValueHint } from './model.js';
import {
  byFirstCase,
  DYNAMIC_COMMAND,
  globalOptionEntries,
  ownOptionEntries,
  pathKey,
  resolveFunction,
  shQuote,
  startScript,
  subcommandEntries,
  valueAndArgumentFunctions,
  wordScanBody,
} from './shared.js';

/** `kind=...` (and the choices) for a hint, as bash assignments. */
function hintAssignment(fn: string, hint: ValueHint): string {
  switch (hint.kind) {
    case 'choices':
      return `${fn}_kind=choices ${fn}_r=${shQuote(hint.values.join(' '))}`;
    case 'by-first':
      return byFirstCase(fn, hint.choices, hintAssignment);
    default:
      return `${fn}_kind=${hint.kind}`;
  }
}

/** `${fn}_candidates`: fills `${fn}_cands` with the full candidates for the value typed so far, by `${fn}_kind`. */
function candidatesFunction(prog: string, fn: string): string[] {
  return [
    `# $1 = the value typed so far: fills ${fn}_cands with full candidates for ${fn}_kind.`,
    `${fn}_candidates() {`,
    '  local line',
    `  ${fn}_cands=()`,
    `  case $${fn}_kind in`,
    `    choices) read -r -a ${fn}_cands <<<"$${fn}_r" ;;`,
    `    services) while IFS= read -r line; do [[ -n $line ]] && ${fn}_cands+=("$line"); done < <(${prog} ${DYNAMIC_COMMAND} services 2>/dev/null) ;;`,
    // Ids in the cache's order (newest first), not sorted as text ("100 … 138 89 92"): nosort is bash 4.4+; older
    // bash ignores the failed compopt and sorts as before.
    '    tasks)',
    '      compopt -o nosort 2>/dev/null',
    `      while IFS=$'\\t' read -r line _; do [[ -n $line ]] && ${fn}_cands+=("$line"); done < <(${prog} ${DYNAMIC_COMMAND} tasks 2>/dev/null) ;;`,
    `    jobs) while IFS=$'\\t' read -r line _; do [[ -n $line ]] && ${fn}_cands+=("$line"); done < <(${prog} ${DYNAMIC_COMMAND} jobs 2>/dev/null)`,
    '      compopt -o filenames 2>/dev/null',
    `      while IFS= read -r line; do ${fn}_cands+=("$line"); done < <(compgen -f -- "$1") ;;`,
    '    file)',
    '      compopt -o filenames 2>/dev/null',
    `      while IFS= read -r line; do ${fn}_cands+=("$line"); done < <(compgen -f -- "$1") ;;`,
    '    report)',
    '      if [[ $1 == junit=* ]]; then',
    '        compopt -o filenames 2>/dev/null',
    `        while IFS= read -r line; do ${fn}_cands+=("junit=$line"); done < <(compgen -f -- "\${1#junit=}")`,
    '      else',
    `        ${fn}_cands=(github junit=)`,
    '        [[ junit= == "$1"* && github != "$1"* ]] && compopt -o nospace 2>/dev/null',
    '      fi ;;',
    '  esac',
    '}',
    '',
  ];
}

export function bashScript(model: CompletionModel): string {
  const prog = model.program;
  const { ident, fn, commands, out, text } = startScript(model, 'bash', [
    `mkdir -p ~/.local/share/bash-completion/completions && ${prog} completion bash > ~/.local/share/bash-completion/completions/${prog}`,
    `echo 'source <(${prog} completion bash)' >> ~/.bashrc`,
  ]);

  out(
    `# $1 = command path: sets ${fn}_r to its subcommands and their aliases.`,
    `${fn}_subcommands() {`,
    '  case $1 in',
  );
  for (const command of commands) {
    if (command.subcommands.length === 0) continue;
    out(
      `    ${shQuote(pathKey(command))}) ${fn}_r=${shQuote(
        subcommandEntries(command)
          .map((e) => e.name)
          .join(' '),
      )} ;;`,
    );
  }
  out(`    *) ${fn}_r='' ;;`, '  esac', '}', '');

  out(...resolveFunction(fn, commands));

  out(
    `# $1 = command path: sets ${fn}_r to the flags it accepts (its own, then the global ones).`,
    `${fn}_options() {`,
    '  case $1 in',
  );
  for (const command of commands) {
    const own = ownOptionEntries(model, command);
    if (own.length > 0)
      out(`    ${shQuote(pathKey(command))}) ${fn}_r=${shQuote(own.map((e) => e.name).join(' '))} ;;`);
  }
  out(
    `    *) ${fn}_r='' ;;`,
    '  esac',
    `  ${fn}_r+=${shQuote(
      ` ${globalOptionEntries(model)
        .map((e) => e.name)
        .join(' ')}`,
    )}`,
    '}',
    '',
  );

  out(...valueAndArgumentFunctions(fn, model, commands, 'r', hintAssignment));

  out(...candidatesFunction(prog, fn));

  out(
    `_${ident}() {`,
    "  local i w cur rlword rlprefix value vprefix='' cmdpath='' flag='' first='' npos=0 dashdash=0",
    `  local ${fn}_r='' ${fn}_kind=''`,
    `  local -a ws=() ${fn}_cands=()`,
    "  # bash splits `--output=json` at '=' (COMP_WORDBREAKS): join the pieces again, so each word is a shell word.",
    '  for ((i = 0; i <= COMP_CWORD; i++)); do',
    '    w=${COMP_WORDS[i]}',
    "    if ((${#ws[@]} > 1)) && [[ $w == '=' || ${COMP_WORDS[i-1]} == '=' ]]; then",
    '      ws[${#ws[@]}-1]+=$w',
    '    else',
    '      ws+=("$w")',
    '    fi',
    '  done',
    '  cur=${ws[${#ws[@]}-1]}',
    '  # What readline replaces is only the text after the last word break; replies drop the part before it.',
    '  rlword=${COMP_WORDS[COMP_CWORD]}',
    "  [[ $rlword == '=' ]] && rlword=''",
    '  rlprefix=${cur%"$rlword"}',
    '',
    '  for ((i = 1; i < ${#ws[@]} - 1; i++)); do',
    '    w=${ws[i]}',
    ...wordScanBody(fn),
    '  done',
    '',
    '  value=$cur',
    '  if [[ -n $flag ]]; then',
    `    ${fn}_value "$cmdpath" "$flag"`,
    '  elif ((!dashdash)) && [[ $cur == --*=* ]]; then',
    '    flag=${cur%%=*} value=${cur#*=} vprefix="${cur%%=*}="',
    `    ${fn}_value "$cmdpath" "$flag" || return 0`,
    '  elif ((!dashdash)) && [[ $cur == -* ]]; then',
    `    ${fn}_options "$cmdpath"`,
    `    ${fn}_kind=choices`,
    `  elif ((npos == 0 && !dashdash)) && ${fn}_subcommands "$cmdpath" && [[ -n $${fn}_r ]]; then`,
    `    ${fn}_kind=choices`,
    `  elif ! ${fn}_argument "$cmdpath" "$npos" "$first"; then`,
    '    return 0',
    '  fi',
    `  [[ $${fn}_kind == none ]] && return 0`,
    `  ${fn}_candidates "$value"`,
    '  COMPREPLY=()',
    `  for w in "\${${fn}_cands[@]}"; do`,
    '    w=$vprefix$w',
    '    [[ $w == "$cur"* ]] && COMPREPLY+=("${w#"$rlprefix"}")',
    '  done',
    '  return 0',
    '}',
    '',
    `complete -F _${ident} ${prog}`,
  );
  return text();
}

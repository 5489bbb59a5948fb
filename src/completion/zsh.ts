/**
 * The zsh script: the same tables and walk as the bash script, offering through the completion system (`_describe`
 * with descriptions, `_files`, `compadd`). Works from `fpath` (as `_taskctl`, via `#compdef`) or sourced after compinit.
 * Variable names avoid zsh's specials (`path` is tied to PATH, `status` is read-only). No `emulate -L zsh`: compsys already
 * sets its options (`_comp_options`) for completion functions, and `_describe` needs them (extended_glob).
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
  type Entry,
  valueAndArgumentFunctions,
  wordScanBody,
} from './shared.js';

function hintAssignment(fn: string, hint: ValueHint): string {
  switch (hint.kind) {
    case 'choices':
      return `${fn}_kind=choices; ${fn}_list=(${hint.values.map(shQuote).join(' ')})`;
    case 'by-first':
      return byFirstCase(fn, hint.choices, hintAssignment);
    default:
      return `${fn}_kind=${hint.kind}`;
  }
}

/** `name:description` for `_describe`; a colon in the name would end it, so it is escaped. */
function describeItem(entry: Entry): string {
  return shQuote(`${entry.name.replace(/:/g, '\\:')}:${entry.description}`);
}

export function zshScript(model: CompletionModel): string {
  const prog = model.program;
  const { ident, fn, commands, out, text } = startScript(
    model,
    'zsh',
    [
      `mkdir -p ~/.zfunc && ${prog} completion zsh > ~/.zfunc/_${prog}`,
      { then: 'fpath=(~/.zfunc $fpath) in ~/.zshrc, before compinit; restart zsh' },
      `echo 'source <(${prog} completion zsh)' >> ~/.zshrc   (after compinit)`,
    ],
    [`#compdef ${prog}`],
  );
  const main = `_${ident}`;

  out(
    `# $1 = command path: sets ${fn}_list to 'name:description' of its subcommands.`,
    `${fn}_subcommands() {`,
    '  case $1 in',
  );
  for (const command of commands) {
    if (command.subcommands.length === 0) continue;
    out(`    ${shQuote(pathKey(command))}) ${fn}_list=(${subcommandEntries(command).map(describeItem).join(' ')}) ;;`);
  }
  out(`    *) ${fn}_list=() ;;`, '  esac', '}', '');

  out(...resolveFunction(fn, commands));

  out(
    `# $1 = command path: sets ${fn}_list to 'flag:description' of the flags it accepts (its own, then the global ones).`,
    `${fn}_options() {`,
    '  case $1 in',
  );
  for (const command of commands) {
    const own = ownOptionEntries(model, command);
    if (own.length > 0) out(`    ${shQuote(pathKey(command))}) ${fn}_list=(${own.map(describeItem).join(' ')}) ;;`);
  }
  out(
    `    *) ${fn}_list=() ;;`,
    '  esac',
    `  ${fn}_list+=(${globalOptionEntries(model).map(describeItem).join(' ')})`,
    '}',
    '',
  );

  out(...valueAndArgumentFunctions(fn, model, commands, 'list', hintAssignment));

  out(
    `# Offers the values of ${fn}_kind for the word being completed.`,
    `${fn}_offer() {`,
    '  local -a found',
    `  case $${fn}_kind in`,
    `    choices) compadd -a ${fn}_list ;;`,
    '    file) _files ;;',
    `    jobs) found=(\${\${(f)"$(${prog} ${DYNAMIC_COMMAND} jobs 2>/dev/null)"}/$'\\t'/:}); _describe -t jobs 'job' found; _files ;;`,
    `    services) found=(\${(f)"$(${prog} ${DYNAMIC_COMMAND} services 2>/dev/null)"}); compadd -a found ;;`,
    `    tasks) found=(\${\${(f)"$(${prog} ${DYNAMIC_COMMAND} tasks 2>/dev/null)"}/$'\\t'/:}); _describe -V -t tasks 'task' found ;;`, // -V: unsorted, newest first
    '    report)',
    '      if [[ $PREFIX == junit=* ]]; then',
    "        compset -P 'junit='",
    '        _files',
    '      else',
    "        compadd -S '' -- junit=",
    '        compadd -- github',
    '      fi ;;',
    '  esac',
    '}',
    '',
  );

  out(
    `${main}() {`,
    "  local cur=$PREFIX w cmdpath='' flag='' first='' npos=0 dashdash=0 i",
    `  local ${fn}_r='' ${fn}_kind=''`,
    `  local -a ${fn}_list`,
    '  for ((i = 2; i < CURRENT; i++)); do',
    '    w=${words[i]}',
    ...wordScanBody(fn),
    '  done',
    '',
    '  if [[ -n $flag ]]; then',
    `    ${fn}_value "$cmdpath" "$flag" && ${fn}_offer`,
    '  elif ((!dashdash)) && [[ $cur == --*=* ]]; then',
    `    ${fn}_value "$cmdpath" "\${cur%%=*}" || return 1`,
    "    compset -P 1 '*='",
    `    ${fn}_offer`,
    '  elif ((!dashdash)) && [[ $cur == -* ]]; then',
    `    ${fn}_options "$cmdpath"`,
    `    _describe -t options 'option' ${fn}_list`,
    `  elif ((npos == 0 && !dashdash)) && ${fn}_subcommands "$cmdpath" && ((\${#${fn}_list} > 0)); then`,
    `    _describe -t commands 'command' ${fn}_list`,
    `  elif ${fn}_argument "$cmdpath" "$npos" "$first"; then`,
    `    ${fn}_offer`,
    '  else',
    '    return 1',
    '  fi',
    '}',
    '',
    '# Autoloaded from fpath: this file is the body of the function, so complete now. Sourced: register with compinit.',
    `if [[ \${funcstack[1]} == ${main} ]]; then`,
    `  ${main} "$@"`,
    'elif (( $+functions[compdef] )); then',
    `  compdef ${main} ${prog}`,
    'fi',
  );
  return text();
}

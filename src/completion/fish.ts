/**
 * The fish script: `complete` rules conditioned on the command path, which `__taskctl_state` finds by walking the
 * tokens before the cursor (skipping the values of flags that take one, so `-o json list` is still `list`).
 */
import type { CompletionModel, OptionModel, ValueHint } from './model.js';
import { oneLine } from './model.js';
import {
  DYNAMIC_COMMAND,
  argumentHints,
  globalValueFlags,
  ownValueFlags,
  pathKey,
  resolutions,
  startScript,
  subcommandEntries,
} from './shared.js';

/** fish single quotes: only backslash and the quote itself are special. */
function fishQuote(text: string): string {
  return `'${text.replace(/[\\']/g, '\\$&')}'`;
}

/** `complete` arguments offering a hint's values. */
function valueArgs(fn: string, hint: ValueHint): string {
  switch (hint.kind) {
    case 'choices':
      return `-x -a ${fishQuote(hint.values.join(' '))}`;
    case 'file':
      return '-r -F';
    case 'jobs':
      return `-r -F -a ${fishQuote(`(${fn}_dynamic jobs)`)}`;
    case 'services':
      return `-x -a ${fishQuote(`(${fn}_dynamic ${hint.kind})`)}`;
    case 'tasks': // -k (--keep-order): ids newest first, not sorted as text ("100 … 138 89 92")
      return `-x -k -a ${fishQuote(`(${fn}_dynamic ${hint.kind})`)}`;
    case 'report':
      return `-x -a ${fishQuote(`(${fn}_report)`)}`;
    case 'none':
    case 'by-first': // one rule per first argument instead (fishScript)
      return '-x';
  }
}

function optionRule(prog: string, fn: string, option: OptionModel, condition: string | undefined): string {
  const parts = [`complete -c ${prog}`];
  if (condition !== undefined) parts.push(`-n ${fishQuote(condition)}`);
  for (const flag of option.flags) {
    if (flag.startsWith('--')) parts.push(`-l ${flag.slice(2)}`);
    else if (flag.length === 2) parts.push(`-s ${flag.slice(1)}`);
    else parts.push(`-o ${flag.slice(1)}`);
  }
  if (option.value) parts.push(valueArgs(fn, option.value));
  parts.push(`-d ${fishQuote(oneLine(option.description))}`);
  return parts.join(' ');
}

/** The script's fixed functions: where the cursor is (`_state`, `_is`, `_arg`) and the dynamic and --report values. */
function helperFunctions(prog: string, fn: string): string[] {
  return [
    '# Prints the number of positional arguments, the command path and the first positional argument, for the tokens',
    '# before the cursor.',
    `function ${fn}_state`,
    '    set -l tokens (commandline -opc)',
    "    set -l cmdpath ''",
    "    set -l first ''",
    '    set -l npos 0',
    '    set -l skip 0',
    '    set -l dashdash 0',
    '    for w in $tokens[2..-1]',
    '        if test $skip = 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        if test $dashdash = 1',
    '            test $npos = 0; and set first $w',
    '            set npos (math $npos + 1)',
    '            continue',
    '        end',
    '        switch $w',
    "            case '--'",
    '                set dashdash 1',
    "            case '--*=*'",
    "            case '-?*'",
    `                ${fn}_takes_value "$cmdpath" $w; and set skip 1`,
    "            case '*'",
    `                if test $npos = 0; and set -l next (${fn}_resolve "$cmdpath" $w)`,
    '                    set cmdpath $next',
    '                else',
    '                    test $npos = 0; and set first $w',
    '                    set npos (math $npos + 1)',
    '                end',
    '        end',
    '    end',
    '    echo $npos',
    '    echo $cmdpath',
    '    echo $first',
    'end',
    '',
    '# $argv[1] = command path: succeeds when the words before the cursor are that command (and its flags or arguments).',
    `function ${fn}_is`,
    `    set -l state (${fn}_state)`,
    '    test "$state[2]" = "$argv[1]"',
    'end',
    '',
    '# $argv = command path, index[, + or =[, first]]: succeeds when the word at the cursor is that positional argument',
    '# (+: or a later one; first: and the first positional argument is that word).',
    `function ${fn}_arg`,
    `    set -l state (${fn}_state)`,
    '    test "$state[2]" = "$argv[1]"; or return 1',
    '    test "$argv[3]" = "+"; and test $state[1] -ge $argv[2]; and return 0',
    '    test $state[1] -eq $argv[2]; or return 1',
    '    test -z "$argv[4]"; or test "$state[3]" = "$argv[4]"',
    'end',
    '',
    '# Service names or recent task ids (with a description) from the local cache.',
    `function ${fn}_dynamic`,
    `    command ${prog} ${DYNAMIC_COMMAND} $argv[1] 2>/dev/null`,
    'end',
    '',
    '# --report values: github, or junit= and a file.',
    `function ${fn}_report`,
    "    set -l token (string replace -r -- '^--report=' '' (commandline -ct))",
    "    if string match -q -- 'junit=*' $token",
    "        __fish_complete_path (string replace -- 'junit=' '' $token) | string replace -r -- '^' 'junit='",
    '    else',
    "        printf '%s\\n' github junit=",
    '    end',
    'end',
    '',
    `complete -c ${prog} -f`,
  ];
}

export function fishScript(model: CompletionModel): string {
  const prog = model.program;
  const { fn, commands, out, text } = startScript(model, 'fish', [
    `mkdir -p ~/.config/fish/completions && ${prog} completion fish > ~/.config/fish/completions/${prog}.fish`,
  ]);
  out(
    `# $argv = command path, word: prints the subcommand's path; fails when the word is not a subcommand.`,
    `function ${fn}_resolve`,
    '    switch "$argv[1]|$argv[2]"',
  );
  for (const command of commands) {
    for (const { parent, word, target } of resolutions(command))
      out(`        case ${fishQuote(`${parent}|${word}`)}`, `            echo ${fishQuote(target)}`);
  }
  out("        case '*'", '            return 1', '    end', 'end', '');

  out(
    `# $argv = command path, flag: succeeds when the flag takes a value there.`,
    `function ${fn}_takes_value`,
    '    switch "$argv[1]|$argv[2]"',
  );
  const patterns = [
    ...commands.flatMap((command) =>
      ownValueFlags(command).map(({ flag }) => fishQuote(`${pathKey(command)}|${flag}`)),
    ),
    ...globalValueFlags(model).map(({ flag }) => fishQuote(`*|${flag}`)),
  ];
  out(`        case ${patterns.join(' ')}`, '            return 0', '    end', '    return 1', 'end', '');

  out(...helperFunctions(prog, fn));

  for (const option of [...model.globals]) out(optionRule(prog, fn, option, undefined));
  for (const option of model.rootOnly) out(optionRule(prog, fn, option, `${fn}_is ''`));
  for (const command of commands) {
    const key = pathKey(command);
    const condition = `${fn}_is ${fishQuote(key)}`;
    for (const entry of subcommandEntries(command)) {
      out(
        `complete -c ${prog} -n ${fishQuote(condition)} -a ${fishQuote(entry.name)} -d ${fishQuote(entry.description)}`,
      );
    }
    const globalFlags = new Set(model.globals.flatMap((o) => o.flags));
    for (const option of command.options) {
      if (option.flags.some((flag) => globalFlags.has(flag))) continue;
      out(optionRule(prog, fn, option, condition));
    }
    for (const { index, variadic, hint } of argumentHints(command)) {
      const where = `${fn}_arg ${fishQuote(key)} ${index}${variadic ? ' +' : ''}`;
      if (hint.kind !== 'by-first') out(`complete -c ${prog} -n ${fishQuote(where)} ${valueArgs(fn, hint)}`);
      else
        for (const [first, values] of Object.entries(hint.choices)) {
          const rule = `${where} = ${fishQuote(first)}`;
          out(`complete -c ${prog} -n ${fishQuote(rule)} ${valueArgs(fn, { kind: 'choices', values })}`);
        }
    }
  }
  return text();
}

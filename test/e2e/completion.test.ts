/**
 * Shell completion through real shells: the checked-in scripts are loaded into bash, zsh and fish, with `taskctl` on
 * PATH (a shim running bin/taskctl.js) and a completion cache filled by `taskctl services` and `taskctl create` against
 * a sandbox. A shell whose binary is missing skips its tests.
 */
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../clock.js';
import { runTaskctl } from '../unit/commands/run-in-process.js';
import { BIN, isolatedHome, runCli, startWorld, type E2EWorld } from './spawn-cli.js';
import { openTerminal, type Terminal } from './tmux.js';
import { missing, skippedUnless } from '../skip-reason.js';

const COMPLETIONS = fileURLToPath(new URL('../../completions/', import.meta.url));
const script = (shell: string) => join(COMPLETIONS, `taskctl.${shell}`);
const hasBinary = (name: string, flag = '--version') => spawnSync(name, [flag], { stdio: 'ignore' }).status === 0;
const has = { bash: hasBinary('bash'), zsh: hasBinary('zsh'), fish: hasBinary('fish'), tmux: hasBinary('tmux', '-V') };

let world: E2EWorld;
let shimDir: string;
let shellEnv: Record<string, string>;
let services: string[];
let taskIds: string[];

beforeAll(async () => {
  world = await startWorld({ itemMs: 0 });
  // `taskctl` on PATH for the scripts' `taskctl __complete ...` calls: the bin runs once per command line (each kind
  // of `__complete`), and its answer (stdout and exit status) is replayed to the calls after it, since the cache it
  // answers from does not change once filled below. The shells still call `taskctl` as users' shells do.
  shimDir = mkdtempSync(join(tmpdir(), 'taskctl-shim-'));
  mkdirSync(join(shimDir, 'answers'));
  writeFileSync(
    join(shimDir, 'taskctl'),
    [
      '#!/bin/sh',
      `memo="${shimDir}/answers/$(printf '%s\\n' "$@" | cksum | cut -d' ' -f1)"`,
      'if [ -f "$memo.status" ]; then cat "$memo.out"; exit "$(cat "$memo.status")"; fi',
      `'${process.execPath}' '${BIN}' "$@" > "$memo.out.$$"`,
      'status=$?',
      'mv "$memo.out.$$" "$memo.out"; echo "$status" > "$memo.status.$$"; mv "$memo.status.$$" "$memo.status"',
      'cat "$memo.out"; exit "$status"',
      '',
    ].join('\n'),
  );
  chmodSync(join(shimDir, 'taskctl'), 0o755);
  shellEnv = {
    ...world.env,
    PATH: `${shimDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    LANG: 'C.UTF-8',
    TERM: 'xterm',
  };
  // Commands that fetch services and tasks anyway fill the completion cache.
  const listed = await world.inProcess(['services', '-o', 'json']);
  services = (JSON.parse(listed.stdout) as Array<{ service: string }>).map((s) => s.service);
  const created = await world.inProcess(['create', 'domain_check_availability', 'a.com', 'b.com', '-q']);
  const second = await world.inProcess(['create', 'email_verify', 'x@example.com', '-q']);
  taskIds = [created.stdout.trim(), second.stdout.trim()];
  expect(services.length).toBeGreaterThan(2);
  expect(taskIds.every((id) => /^\d+$/.test(id))).toBe(true);
  // Each kind of call the scripts make, once through the shim before the shells run side by side: otherwise each shell
  // reached the bin before another's answer was kept, and the bin ran once per shell for the same answer.
  const warmed = await Promise.all(
    ['services', 'tasks'].map((kind) =>
      exec(join(shimDir, 'taskctl'), ['--request-timeout', '1500ms', '__complete', kind]),
    ),
  );
  for (const warm of warmed) {
    expect(warm.code, warm.stderr).toBe(0);
    // An empty answer would be kept for every shell: said here, not as offers missing in each shell's tests.
    expect(warm.stdout, 'the bin answered nothing within its 1.5 s request budget').not.toBe('');
  }
  // A bound, not a measure: two starts of the bin and a sandbox on a loaded machine.
}, 90_000);

afterAll(async () => {
  rmSync(shimDir, { recursive: true, force: true });
  await world.close();
});

/** Runs a program with the shells' environment, asynchronously: the sandbox lives in this process. */
function exec(
  file: string,
  args: string[],
  env: Record<string, string> = shellEnv,
  timeoutMs = 20_000,
): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout: timeoutMs }, (error, stdout, stderr) => {
      resolve({ stdout, stderr, code: error ? (typeof error.code === 'number' ? error.code : 1) : 0 });
    });
  });
}

/** `main()` in this process with exactly `env` (the shells' calls of `taskctl __complete` spawn the bin). */
async function runInProcess(args: string[], env: Record<string, string>) {
  const result = await runTaskctl(args, { env, home: world.home.dir, clock: new FakeClock(Date.now()) });
  return result;
}

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

describe('taskctl completion SHELL', () => {
  it.each(['bash', 'zsh', 'fish'])('prints exactly completions/taskctl.%s', async (shell) => {
    const result = await world.inProcess(['completion', shell]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(readFileSync(script(shell), 'utf8'));
  });

  it('refuses an unknown shell with a usage error', async () => {
    const result = await world.inProcess(['completion', 'powershell']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/should be one of bash, zsh or fish/);
  });
});

describe('taskctl __complete', () => {
  const stats = () => world.admin<{ requests: Record<string, number> }>('GET', '/__sandbox/stats');

  it('answers from the cache without touching the network', async () => {
    await world.admin('POST', '/__sandbox/stats/reset');
    const result = await world.inProcess(['__complete', 'services']);
    expect(lines(result.stdout)).toEqual(services);
    const tasks = await world.inProcess(['__complete', 'tasks']);
    expect(lines(tasks.stdout).map((line) => line.split('\t')[0])).toEqual([...taskIds].reverse());
    expect(lines(tasks.stdout)[0]).toMatch(/^\d+\temail_verify \w+$/);
    expect((await stats()).requests).toEqual({});
  });

  it('with an empty cache, asks the API once and fills the cache', async () => {
    const home = isolatedHome();
    try {
      await world.admin('POST', '/__sandbox/stats/reset');
      const env = { ...world.env, ...home.env };
      const first = await runInProcess(['__complete', 'services'], env);
      expect(lines(first.stdout)).toEqual(services);
      expect((await stats()).requests).toEqual({ 'GET /api/v1/services': 1 });
      const second = await runInProcess(['__complete', 'services'], env);
      expect(lines(second.stdout)).toEqual(services);
      expect((await stats()).requests).toEqual({ 'GET /api/v1/services': 1 });
    } finally {
      home.cleanup();
    }
  });

  it('prints nothing and never prompts when no API key is configured', async () => {
    const home = isolatedHome();
    try {
      const result = await runInProcess(['__complete', 'tasks'], home.env);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe('');
    } finally {
      home.cleanup();
    }
  });

  it('is not listed in help', async () => {
    expect((await world.inProcess(['--help'])).stdout).not.toContain('__complete');
  });
});

// From here on the tests only read the cache filled above, or use a sandbox of their own: they run side by side.
describe('taskctl __complete against an API that does not answer', { concurrent: true }, () => {
  it('prints nothing, and ends on its own budget, when the API does not answer', async () => {
    // A sandbox of its own: its fault must not reach the tests running beside this one.
    const stalled = await startWorld({ itemMs: 0 });
    try {
      await stalled.admin('POST', '/__sandbox/faults', {
        method: 'GET',
        path: '/services',
        kind: 'delay',
        delayMs: 600_000,
        count: 5,
      });
      // Spawned: the process must end on its own budget (here 0.5 s; the scripts pass 1.5 s), not when the stalled
      // request would (10 min); runCli's guard (20 s) fails the test if it hangs on. Its speed is for `npm run bench`,
      // not an assertion here.
      const result = await runCli(['--request-timeout', '500ms', '__complete', 'services'], { env: stalled.env });
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe('');
    } finally {
      await stalled.close();
    }
  });
});

/** A word quoted for a shell script (bash, zsh and fish read `'…'` alike for these words). */
const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
/** Ends each case's offers in a batch's output. */
const END = '--end-of-case--';

/** One case's offers per batch: the output split at END. */
function offersOf(stdout: string, count: number): string[][] {
  const parts = stdout.split(`${END}\n`).slice(0, -1).map(lines);
  expect(parts).toHaveLength(count);
  return parts;
}

/**
 * What bash offers for the words of each command line (the last word is the one being completed), all in one bash:
 * as at a prompt, one completion after another in the same shell.
 */
async function bashComplete(...cases: string[][]): Promise<string[][]> {
  const code = [
    'source "$SCRIPT"',
    '__case() {',
    '  COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()',
    '  _taskctl',
    `  printf "%s\\n" "\${COMPREPLY[@]}" ${END}`,
    '}',
    ...cases.map((words) => `__case ${words.map(quote).join(' ')}`),
  ].join('\n');
  const result = await exec('bash', ['--norc', '--noprofile', '-c', code], { ...shellEnv, SCRIPT: script('bash') });
  expect(result.stderr).toBe('');
  return offersOf(result.stdout, cases.length);
}

/** Each case's words and what the shell must offer for them. */
type Cases = Array<[words: string[], offered: string[]]>;
type Complete = (...cases: string[][]) => Promise<string[][]>;
async function expectOffers(complete: Complete, cases: Cases): Promise<void> {
  const offered = await complete(...cases.map(([words]) => words));
  expect(cases.map(([words], i) => [words.join(' '), offered[i]])).toEqual(
    cases.map(([words, expected]) => [words.join(' '), expected]),
  );
}

describe.skipIf(!has.bash)(skippedUnless('bash', has.bash, missing('bash')), { concurrent: true }, () => {
  it('completes commands', async () => {
    await expectOffers(bashComplete, [
      [['taskctl', 'cr'], ['create']],
      [
        ['taskctl', 'webhook', ''],
        ['listen', 'simulate', 'help'],
      ],
      [
        ['taskctl', 'l'],
        ['list', 'ls'],
      ],
    ]);
  });

  it('completes the service of create from the cache', async () => {
    await expectOffers(bashComplete, [
      [['taskctl', 'create', ''], services],
      [['taskctl', 'create', 'domain_c'], ['domain_check_availability']],
      [['taskctl', '--profile', 'x', 'create', '--wait', 'email'], ['email_verify']],
    ]);
  });

  it('completes recent task ids for show, wait, watch and webhook simulate', async () => {
    const expected = [...taskIds].reverse();
    await expectOffers(bashComplete, [
      [['taskctl', 'show', ''], expected],
      [['taskctl', 'wait', taskIds[0]!, ''], expected],
      [['taskctl', 'watch', ''], expected],
      [['taskctl', 'webhook', 'simulate', ''], expected],
    ]);
  });

  it('completes flags and their values, also after global flags with values', async () => {
    await expectOffers(bashComplete, [
      [
        ['taskctl', '-o', ''],
        ['table', 'tsv', 'csv', 'json', 'ndjson'],
      ],
      [['taskctl', 'list', '--output', 'j'], ['json']],
      // bash splits `--output=j` at '=': readline replaces only the text after it.
      [['taskctl', '--output', '=', 'j'], ['json']],
      [
        ['taskctl', '--output', '='],
        ['table', 'tsv', 'csv', 'json', 'ndjson'],
      ],
      [['taskctl', '--profile', 'ci', 'ls', '--st'], ['--status']],
      [
        ['taskctl', 'list', '--status', ''],
        ['pending', 'processing', 'completed', 'failed'],
      ],
      [
        ['taskctl', 'wait', '--report', ''],
        ['github', 'junit='],
      ],
      [
        ['taskctl', 'completion', ''],
        ['bash', 'zsh', 'fish'],
      ],
      [['taskctl', 'config', 'get', 'base'], ['base-url']],
    ]);
  });

  it("completes a setting's value after config set, for the settings that have a fixed set", async () => {
    await expectOffers(bashComplete, [
      [
        ['taskctl', 'config', 'set', 'output', ''],
        ['table', 'tsv', 'csv', 'json', 'ndjson'],
      ],
      [['taskctl', '--profile', 'ci', 'config', 'set', 'auth-scheme', 'b'], ['bearer']],
      [['taskctl', 'config', 'set', 'base-url', ''], []],
      [['taskctl', 'config', 'set', 'output', 'json', ''], []],
    ]);
  });

  it('offers nothing for free-text values and items', async () => {
    await expectOffers(bashComplete, [
      [['taskctl', 'create', 'domain_check_availability', ''], []],
      [['taskctl', 'wait', '--timeout', ''], []],
    ]);
  });
});

/**
 * zsh completion functions run only inside the line editor. Without a pseudo-terminal, the completion system's
 * builtins are replaced by functions that print what would be offered (filtered by PREFIX, as compadd does).
 */
const ZSH_STUBS = `
__offer() { local c; for c in "$@"; do [[ $c == \${PREFIX}* ]] && print -r -- "\${IPREFIX}\${c}"; done; return 0 }
compadd() {
  local -a cands; local arrays=0
  while (( $# )); do
    case $1 in
      -[SPJVXxo]) shift 2 ;;
      -a) arrays=1; shift ;;
      --) shift; cands+=("$@"); break ;;
      -*) shift ;;
      *) if (( arrays )); then cands+=("\${(@P)1}"); else cands+=("$1"); fi; shift ;;
    esac
  done
  __offer "\${cands[@]}"
}
_describe() {
  while [[ $1 == -* ]]; do if [[ $1 == -t ]]; then shift 2; else shift; fi; done
  shift
  local -a names; local x
  for x in "\${(@P)1}"; do names+=("\${x%%:*}"); done
  __offer "\${names[@]}"
}
_files() { print -r -- "<files>" }
compset() {
  [[ $1 == -P ]] || return 1; shift
  local n=0; [[ $1 == <-> ]] && { n=$1; shift }
  local m; if (( n )); then m=\${(M)PREFIX#\${~1}}; else m=\${(M)PREFIX##\${~1}}; fi
  [[ -n $m ]] || return 1
  IPREFIX+=$m; PREFIX=\${PREFIX#$m}
}
`;

/** What zsh offers for each command line's words, all in one zsh (the stubs above stand in for the line editor). */
/** zsh's fpath reduced to the directory compinit lives in (zsh glob: `compinit`'s path, its head). */
const COMPINIT_ONLY = '$^fpath/compinit(N:h)';

async function zshComplete(...cases: string[][]): Promise<string[][]> {
  const code = [
    'source "$SCRIPT"',
    ZSH_STUBS,
    `__case() { words=("$@"); CURRENT=$#; PREFIX=\${words[CURRENT]}; IPREFIX=''; _taskctl; print -r -- ${END} }`,
    ...cases.map((words) => `__case ${words.map(quote).join(' ')}`),
  ].join('\n');
  const result = await exec('zsh', ['-f', '-c', code], { ...shellEnv, SCRIPT: script('zsh') });
  expect(result.stderr).toBe('');
  return offersOf(result.stdout, cases.length);
}

describe.skipIf(!has.zsh)(skippedUnless('zsh', has.zsh, missing('zsh')), { concurrent: true }, () => {
  it('is valid zsh', async () => {
    expect((await exec('zsh', ['-n', script('zsh')])).code).toBe(0);
  });

  it('registers _taskctl for taskctl when sourced after compinit, and from fpath through #compdef', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taskctl-zsh-'));
    try {
      mkdirSync(join(dir, 'functions'));
      mkdirSync(join(dir, 'empty'));
      cpSync(script('zsh'), join(dir, 'functions', '_taskctl'));
      // compinit reads every file on fpath (over a thousand, seconds on a loaded machine): here fpath is the directory
      // under test and compinit's own, and the two run at once.
      const [sourced, autoloaded] = await Promise.all([
        exec(
          'zsh',
          [
            '-f',
            '-c',
            `fpath=(${dir}/empty ${COMPINIT_ONLY}); autoload -U compinit && compinit -u -d ${dir}/dump && print -r -- "[$_comps[taskctl]]" && source "$SCRIPT" && print -r -- $_comps[taskctl]`,
          ],
          { ...shellEnv, SCRIPT: script('zsh') },
          60_000,
        ),
        exec(
          'zsh',
          [
            '-f',
            '-c',
            `fpath=(${dir}/functions ${COMPINIT_ONLY}); autoload -U compinit && compinit -u -d ${dir}/dump2 && print -r -- $_comps[taskctl]`,
          ],
          shellEnv,
          60_000,
        ),
      ]);
      expect(lines(sourced.stdout), sourced.stderr).toEqual(['[]', '_taskctl']);
      expect(autoloaded.stdout.trim(), autoloaded.stderr).toBe('_taskctl');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('completes commands, services, task ids, flags and flag values', async () => {
    await expectOffers(zshComplete, [
      [['taskctl', 'cr'], ['create']],
      [['taskctl', 'create', ''], services],
      [['taskctl', 'show', ''], [...taskIds].reverse()],
      [
        ['taskctl', '-o', ''],
        ['table', 'tsv', 'csv', 'json', 'ndjson'],
      ],
      [['taskctl', '--output=j'], ['--output=json']],
      [['taskctl', '-o', 'json', 'ls', '--st'], ['--status']],
      [['taskctl', 'create', '-f', ''], ['<files>']],
      [
        ['taskctl', 'wait', '--report', ''],
        ['junit=', 'github'],
      ],
      [
        ['taskctl', 'config', 'set', 'auth-scheme', ''],
        ['x-api-key', 'bearer'],
      ],
      [['taskctl', 'config', 'set', 'base-url', ''], []],
    ]);
  });
});

/** What fish offers for each command line, all in one fish; the offers only, without their descriptions. */
async function fishComplete(...commandLines: string[][]): Promise<string[][]> {
  const code = ['source $SCRIPT', ...commandLines.map(([line = '']) => `complete -C ${quote(line)}; echo ${END}`)].join(
    '\n',
  );
  const result = await exec('fish', ['--no-config', '-c', code], { ...shellEnv, SCRIPT: script('fish') });
  expect(result.stderr).toBe('');
  return offersOf(result.stdout, commandLines.length).map((offers) => offers.map((entry) => entry.split('\t')[0]!));
}

/** fish sorts what it offers as text, except where the script keeps an order (task ids): these cases compare sorted. */
const sorted =
  (complete: Complete): Complete =>
  async (...cases) =>
    (await complete(...cases)).map((offers) => [...offers].sort());

describe.skipIf(!has.fish)(skippedUnless('fish', has.fish, missing('fish')), { concurrent: true }, () => {
  it('is valid fish', async () => {
    expect((await exec('fish', ['--no-config', '-n', script('fish')])).code).toBe(0);
  });

  it('completes commands, services, task ids, flags and flag values', async () => {
    await expectOffers(fishComplete, [
      [['taskctl cr'], ['create']],
      // Ids in the cache's order, newest first (fish would sort them as text): not re-sorted here.
      [['taskctl show '], [...taskIds].reverse()],
      [['taskctl --output json webhook simulate '], [...taskIds].reverse()],
      [['taskctl list --st'], ['--status']],
      [['taskctl create domain_check_availability '], []],
      [['taskctl config set base-url '], []],
    ]);
    await expectOffers(sorted(fishComplete), [
      [['taskctl create '], [...services].sort()],
      [['taskctl -o '], ['csv', 'json', 'ndjson', 'table', 'tsv']],
      [['taskctl list --status '], ['completed', 'failed', 'pending', 'processing']],
      [['taskctl config set auth-scheme '], ['bearer', 'x-api-key']],
    ]);
  });
});

/** A real interactive shell in tmux: TAB goes through readline / zle, with the user's usual word splitting. */
let terminal: Terminal | undefined;

/**
 * Starts `shellCommand` in a terminal, runs `setup` in it, then types each of `lines` and TAB, and returns the screen
 * once it matches the line's pattern (the whole line as completed: a looser one could match a frame the line editor is
 * still drawing); Ctrl-U clears the line, and the next one is typed once the empty prompt is back.
 */
async function typeAndTab(
  shellCommand: string,
  setup: string,
  lines: ReadonlyArray<readonly [typed: string, expected: RegExp]>,
): Promise<string[]> {
  if (!terminal) throw new Error('tmux is not installed');
  const env = Object.entries({ ...shellEnv, HOME: world.home.dir, PS1: '$ ' })
    .map(([key, value]) => `${key}='${value}'`)
    .join(' ');
  const shell = terminal.shell(`env -i ${env} ${shellCommand}`, 150, 20);
  try {
    // The shell is ready for TAB once it has run the setup and printed the marker's result (not its echo).
    await shell.keys(`${setup}; echo READY-$((40 + 2))`, 'Enter');
    await shell.until(/^READY-42/m);
    const screens: string[] = [];
    for (const [typed, expected] of lines) {
      await shell.keys(typed, 'Tab');
      screens.push(await shell.until(expected));
      await shell.keys('C-u');
      await shell.until(/^\$ +$/m);
    }
    return screens;
  } finally {
    await shell.close();
  }
}

// Each shell in a session of its own, side by side.
describe.skipIf(!has.tmux)(skippedUnless('in a real terminal', has.tmux, missing('tmux')), { concurrent: true }, () => {
  beforeAll(() => {
    terminal = openTerminal('completion');
  });
  afterAll(() => terminal?.close());

  it.skipIf(!has.bash)(
    skippedUnless('bash: TAB completes a command and a --flag=value', has.bash, missing('bash')),
    async () => {
      const setup = `source '${script('bash')}'`;
      const [command, flag] = await typeAndTab('bash --norc --noprofile -i', setup, [
        ['taskctl cr', /\$ taskctl create $/m],
        ['taskctl --output=j', /\$ taskctl --output=json $/m],
      ]);
      expect(command).toMatch(/\$ taskctl create $/m);
      expect(flag).toMatch(/\$ taskctl --output=json $/m);
    },
  );

  it.skipIf(!has.zsh)(
    skippedUnless('zsh: TAB completes a command and a service name', has.zsh, missing('zsh')),
    async () => {
      // compinit over zsh's whole fpath took more than 8 s on a loaded machine: here its own directory and the base
      // functions the line editor's completion runs (_main_complete, _describe).
      const fpath = `fpath=(${COMPINIT_ONLY} $^fpath/_main_complete(N:h))`;
      const setup = `${fpath}; autoload -U compinit && compinit -u -d '${world.home.dir}/zcompdump' && source '${script('zsh')}'`;
      const [command, service] = await typeAndTab('zsh -f -i', setup, [
        ['taskctl cr', /\$ taskctl create $/m],
        ['taskctl create email_', /\$ taskctl create email_verify $/m],
      ]);
      expect(command).toMatch(/\$ taskctl create $/m);
      expect(service).toMatch(/\$ taskctl create email_verify $/m);
    },
  );
});

/**
 * main(argv, deps) → exit code: the only place an error becomes a number (like gh's ghcmd.Main).
 * Start-up speed (docs/performance.md): this module's static imports stay tiny. `--version`, and a command that takes
 * no arguments or flags typed alone (`taskctl balance`), are answered without loading commander; otherwise the
 * commander tree loads next, and the context (config, zod) only once a command runs.
 */
import type { CommandAction } from './commands/help-text.js';
import type { Context, Deps, GlobalOptions } from './context.js';
import { fstatSync } from 'node:fs';
import type { InputStream, JobControl } from './output/io.js';
import {
  CliError,
  ExitCode,
  InputError,
  readInterrupted,
  STOP_SIGNALS,
  signalExitCode,
  systemErrorWords,
} from './errors.js';
import { systemClock } from './lib/time.js';
import { neutraliseMultiline } from './lib/sanitize.js';
import { createRedactor } from './lib/redact.js';
import { sandboxAwareHint } from './core/sandbox-hint.js';
import { VERSION } from './version.js';
import { noteStopSignal, settleOutcome } from './output/stdout-guard.js';
import { plainCommandWord, type PlainCommandWord } from './boot/plain-command.js';

function defaultDeps(): Deps {
  const controller = new AbortController();
  // First Ctrl-C (or SIGTERM, SIGHUP) asks the command to stop (wait prints how to resume); a second Ctrl-C or SIGTERM
  // gets Node's default behaviour. The exit code follows the signal (signalExitCode: 130, 143, 129).
  for (const signal of Object.keys(STOP_SIGNALS) as Array<keyof typeof STOP_SIGNALS>) {
    process.once(signal, () => {
      // A terminal echoes Ctrl-C as `^C` where the cursor is: back to the first column, so what is printed next is
      // not pushed two columns on (a line wrapped for the width would split a word).
      if (signal === 'SIGINT' && process.stderr.isTTY) process.stderr.write('\r');
      noteStopSignal(process.stdout, STOP_SIGNALS[signal]);
      controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError', signal }));
    });
  }
  const jobControl = processJobControl();
  let stdin: InputStream | undefined;
  return {
    io: {
      stdout: process.stdout,
      stderr: process.stderr,
      ...(jobControl && { jobControl }),
      // Node creates process.stdin on first use, which costs ~3 ms: only commands that read it pay.
      get stdin() {
        return (stdin ??= processStdin());
      },
    },
    env: process.env,
    clock: systemClock,
    signal: controller.signal,
    // Only a command that asks (after the first Ctrl-C) catches the second one; otherwise it ends the process.
    onInterruptAgain: (handler) => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, handler);
    },
    pager: async (text) => (await import('./output/pager.js')).systemPager(process.env)(text),
  };
}

/**
 * fd 0 as a stream. A directory there (`< /tmp`) reads as nothing in Node, which would say "stdin is empty" (or wait
 * for no ids): its first read is refused instead, exit 3, whichever command reads it.
 */
function processStdin(): InputStream {
  let directory = false;
  try {
    directory = fstatSync(0).isDirectory();
  } catch {
    // fd 0 closed: process.stdin says so where it is read.
  }
  if (!directory) return process.stdin;
  const failed = () =>
    Promise.reject(
      // With its system code, for a reader that names its own source (a key: exit 2, store/key-file.ts).
      Object.assign(
        new InputError(
          'cannot read stdin: it is a directory',
          'Redirect a file (< FILE), not a directory, or pipe the input in.',
        ),
        { code: 'EISDIR' },
      ),
    );
  return { [Symbol.asyncIterator]: () => ({ next: failed }) };
}

/**
 * Ctrl-Z and `fg` for the live block (output/progress.ts): on Ctrl-Z it clears the terminal, then the process stops as
 * it would have: the listener goes, which gives SIGTSTP its default action again, and the signal is raised once more.
 * None on Windows, which has no job control.
 */
function processJobControl(): JobControl | undefined {
  if (process.platform === 'win32') return undefined;
  return {
    watch(suspending, resumed) {
      const stop = () => {
        suspending();
        process.off('SIGTSTP', stop);
        process.kill(process.pid, 'SIGTSTP');
      };
      const continued = () => {
        if (!process.listeners('SIGTSTP').includes(stop)) process.on('SIGTSTP', stop);
        resumed();
      };
      process.on('SIGTSTP', stop);
      process.on('SIGCONT', continued);
      return () => {
        process.off('SIGTSTP', stop);
        process.off('SIGCONT', continued);
      };
    },
  };
}

/**
 * Commands without arguments or flags of their own, run without commander when typed alone (boot/plain-command.ts):
 * commander and the command tree are ~5 ms of start-up such a run never uses (docs/performance.md). Their file in
 * commands/ registers the same action for every other form (`balance -o json`, `--help`).
 */
const PLAIN_COMMANDS: Readonly<Record<PlainCommandWord, () => Promise<CommandAction>>> = {
  balance: async () => (await import('./core/balance.js')).runBalance,
};

/** The global options commander gives a command typed alone (test/unit/main.test.ts holds them to commander's). */
export const PLAIN_GLOBALS: GlobalOptions = Object.freeze({ color: true, input: true });

export async function main(argv: string[], deps: Deps = defaultDeps()): Promise<number> {
  // Fast path: the exact output of commander's `--version`, without loading it.
  if (argv.length === 1 && argv[0] === '--version') {
    deps.io.stdout.write(`${VERSION}\n`);
    return ExitCode.ok;
  }
  let ctx: Context | undefined;
  const runCommand = async (globals: GlobalOptions, commandPath: string, action: CommandAction): Promise<void> => {
    const { Context } = await import('./context.js');
    ctx = new Context(deps, globals);
    ctx.commandPath = commandPath;
    ctx.typed = argv;
    await ctx.setup();
    await action(ctx);
  };
  const word = plainCommandWord(argv);
  if (word !== undefined) {
    try {
      await runCommand(PLAIN_GLOBALS, `taskctl ${word}`, await PLAIN_COMMANDS[word]());
      return signalExitCode(ctx?.exitCode ?? ExitCode.ok, deps.signal);
    } catch (error) {
      const { fitToStream } = await import('./output/width.js');
      return signalExitCode(report(error, ctx, deps, { fitToStream }), deps.signal);
    } finally {
      await ctx?.cleanup();
    }
  }
  // width.js comes with the program (its help wrapper): errors before a printer exists are wrapped with it.
  const [{ buildProgram }, { CommanderError }, { fitToStream }] = await Promise.all([
    import('./program.js'),
    import('commander'),
    import('./output/width.js'),
  ]);
  const program = buildProgram(
    deps.io,
    (command, action) =>
      runCommand(command.optsWithGlobals<GlobalOptions>(), `${command.parent?.name() ?? ''} ${command.name()}`, action),
    argv,
    createRedactor([deps.env.TASKCTL_API_KEY?.trim()]),
  );
  if (argv.length === 0) {
    // A bare `taskctl`: the short overview on stdout, exit 0 (gh, kubectl); `--help` has the full text.
    const [{ overview }, { lineBudget }] = await Promise.all([
      import('./boot/overview.js'),
      import('./output/width.js'),
    ]);
    const { stdout } = deps.io;
    // A pipe or a file has no width: nothing is cut or wrapped there (`taskctl | grep webhook`).
    deps.io.stdout.write(overview(program, stdout.isTTY ? lineBudget(stdout.columns) : undefined));
    return ExitCode.ok;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return signalExitCode(ctx?.exitCode ?? ExitCode.ok, deps.signal);
  } catch (error) {
    return signalExitCode(report(error, ctx, deps, { CommanderError, fitToStream }), deps.signal);
  } finally {
    await ctx?.cleanup();
  }
}

/**
 * The commands that only read (the account, tasks, a journal, files): one stopped by Ctrl-C or SIGTERM where it has no
 * words of its own (a read in flight) changed nothing. `wait`'s own stop says which tasks it waits for (core/follow);
 * `taskctl api` says it of a GET where it sends it (api/client.ts).
 */
const READS: ReadonlySet<string> = new Set(
  ['show', 'list', 'diff', 'wait', 'balance', 'services'].map((c) => `taskctl ${c}`),
);

/** `taskctl create`, `taskctl config set`: the command path as typed (commandPath is its parent's name and its own). */
function commandLine(commandPath: string): string {
  const path = commandPath.trim();
  return path.startsWith('taskctl') ? path : `taskctl ${path}`;
}

/** A system error (a syscall's errno) in the words of every other message, with the path it names; else its message. */
function unexpectedWords(err: Error): string {
  const { errno, syscall, path } = err as NodeJS.ErrnoException;
  if (typeof errno !== 'number' && typeof syscall !== 'string') return err.message;
  const words = systemErrorWords(err);
  return typeof path === 'string' ? `${words} (${path})` : words;
}

/** The exit code a failure ends the run with (`report` says it). */
function exitCodeOf(error: unknown, deps: Deps): number {
  if (error instanceof CliError) return error.exitCode;
  return deps.signal.aborted ? ExitCode.interrupted : ExitCode.unexpected;
}

function report(
  error: unknown,
  ctx: Context | undefined,
  deps: Deps,
  loaded: {
    /** Absent when commander was never loaded: then nothing thrown can be one of its errors. */
    CommanderError?: typeof import('commander').CommanderError;
    fitToStream: typeof import('./output/width.js').fitToStream;
  },
): number {
  const { CommanderError, fitToStream } = loaded;
  if (CommanderError && error instanceof CommanderError) {
    // Commander has already printed help, the version or its own error message.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return ExitCode.ok;
    // Help asked for (`taskctl help config`, `config help`) is 0; shown for a command typed without its subcommand, 2.
    if (error.code === 'commander.help' && error.exitCode === 0) return ExitCode.ok;
    settleOutcome(deps.io.stdout, ExitCode.usage);
    return ExitCode.usage;
  }
  const code = exitCodeOf(error, deps);
  // Settled before the message: a reader of stderr gone when it is written ends the run with this code, never 0.
  settleOutcome(deps.io.stdout, code);
  // Before the context exists (a flag's value refused while parsing), the key of the environment is still known.
  const redact = ctx?.redact ?? createRedactor([deps.env.TASKCTL_API_KEY?.trim()]);
  // Before the printer exists (a flag's value refused while parsing): wrapped on a terminal all the same.
  const write = (line: string) =>
    deps.io.stderr.write(fitToStream(`${redact(neutraliseMultiline(line))}\n`, deps.io.stderr));
  const printError = (message: string, hint?: string) => {
    if (ctx?.hasPrinter) ctx.printer.error(message, hint);
    else {
      write(`error: ${message}`);
      if (hint) write(hint);
    }
  };
  if (error instanceof CliError && error.exitCode === ExitCode.declined) {
    // Declining the prompt is the person's own choice, not a failure: said calmly, without `error:` (exit 13).
    if (ctx?.hasPrinter) ctx.printer.notice(error.message, error.hint);
    else write(error.hint ? `${error.message}\n${error.hint}` : error.message);
    return code;
  }
  if (error instanceof CliError) {
    // A usage error's hint shows syntax (`taskctl show 42`), not a task of this sandbox: it stays.
    const ephemeral = ctx?.ephemeralSandbox === true && error.exitCode !== ExitCode.usage;
    // A usage error without advice of its own still names the next step: the command's usage and examples.
    const hint =
      error.hint ??
      (error.exitCode === ExitCode.usage && ctx?.commandPath
        ? `Run \`${commandLine(ctx.commandPath)} --help\` for usage and examples.`
        : undefined);
    printError(error.message, sandboxAwareHint(ephemeral, hint));
    if (ctx?.globals.verbose && error.stack) write(error.stack);
    return code;
  }
  if (deps.signal.aborted) {
    // A read stopped part-way changed nothing, and the same command reads it again: said as diff's own stop is, with
    // how to go on (docs/behaviour.md#exit-codes).
    if (ctx !== undefined && READS.has(ctx.commandPath.trim())) {
      const stopped = readInterrupted();
      printError(stopped.message, sandboxAwareHint(ctx.ephemeralSandbox, stopped.hint));
      return code;
    }
    // Ctrl-C is the person's own choice: said without "error:", like a declined prompt.
    if (ctx?.hasPrinter) ctx.printer.notice('interrupted');
    else write('interrupted');
    return code;
  }
  const err = error instanceof Error ? error : new Error(String(error));
  printError(
    `unexpected error: ${unexpectedWords(err)}`,
    'This is a bug in taskctl: please report it with the output of the same command run with --verbose.',
  );
  if (ctx?.globals.verbose && err.stack) write(err.stack);
  return code;
}

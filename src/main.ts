/** main(argv, deps) → exit code: the only place an error becomes a number (like gh's ghcmd.Main). */
import { CommanderError } from 'commander';
import { Context, type Deps, type GlobalOptions } from './context.js';
import { CliError, ExitCode } from './errors.js';
import { systemClock } from './core/time.js';
import { buildProgram } from './program.js';

export function defaultDeps(): Deps {
  const controller = new AbortController();
  // First Ctrl-C asks the command to stop (wait prints how to resume); a second one gets Node's default behaviour.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError', signal })));
  }
  return {
    io: { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin },
    env: process.env,
    clock: systemClock,
    signal: controller.signal,
  };
}

export async function main(argv: string[], deps: Deps = defaultDeps()): Promise<number> {
  let ctx: Context | undefined;
  const program = buildProgram(deps.io, async (command, action) => {
    ctx = new Context(deps, command.optsWithGlobals<GlobalOptions>());
    await ctx.setup();
    await action(ctx);
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return ctx?.exitCode ?? ExitCode.ok;
  } catch (error) {
    return report(error, ctx, deps);
  } finally {
    await ctx?.cleanup();
  }
}

function report(error: unknown, ctx: Context | undefined, deps: Deps): number {
  if (error instanceof CommanderError) {
    // Commander has already printed help, the version or its own error message.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return ExitCode.ok;
    return ExitCode.usage;
  }
  const redact = ctx?.redact ?? ((text: string) => text);
  const write = (line: string) => deps.io.stderr.write(`${redact(line)}\n`);
  const printError = (message: string, hint?: string) => {
    if (ctx?.hasPrinter) ctx.printer.error(message, hint);
    else {
      write(`error: ${message}`);
      if (hint) write(hint);
    }
  };
  if (error instanceof CliError) {
    printError(error.message, error.hint);
    if (ctx?.globals.verbose && error.stack) write(error.stack);
    return error.exitCode;
  }
  if (deps.signal.aborted) {
    printError('interrupted');
    return ExitCode.interrupted;
  }
  const err = error instanceof Error ? error : new Error(String(error));
  printError(`unexpected error: ${err.message}`, 'This is a bug in taskctl: please report it with the output of the same command run with --verbose.');
  if (ctx?.globals.verbose && err.stack) write(err.stack);
  return ExitCode.unexpected;
}

/**
 * A hint printed on stderr, followed verbatim, runs as the same account: the run's `--profile`, `--base-url` and
 * `--api-key-file` are put after `taskctl` in every command a message names, never in stdout's data.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_COMMANDS, COMMANDS, KEY_FROM_STDIN_NOTE, hintGlobals } from '../../../src/output/hint-globals.js';
import { shellWord } from '../../../src/lib/shell-word.js';
import { createMemoryIO } from '../../../src/output/memory-io.js';
import { buildProgram } from '../../../src/program.js';
import { runTaskctl, sandboxRun, type RunOptions } from '../commands/run-in-process.js';
import { stoppedInChunk2Check, worldEachTest, type World } from '../commands/sandbox-world.js';

const S = 'domain_check_availability';

/** A command line as a POSIX shell splits it: words apart at spaces, single quotes kept together. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/(?:'[^']*'|\\.|[^\s'\\])+/g)].map(([word]) =>
    word.replace(
      /'([^']*)'|\\(.)/g,
      (_m, quoted: string | undefined, escaped: string | undefined) => quoted ?? escaped ?? '',
    ),
  );
}

describe('the rewrite of a message', () => {
  const rewrite = hintGlobals({ profile: 'p2', baseUrl: 'http://127.0.0.1:8787/api/v1', apiKeyFile: '/k/my key.txt' });

  it('puts the flags after `taskctl` of every command named, values quoted for a shell where needed', () => {
    expect(rewrite?.('Continue it with: taskctl resume j-1; see `taskctl show --job j-1` and taskctl jobs')).toBe(
      'Continue it with: taskctl --profile p2 --base-url http://127.0.0.1:8787/api/v1 --api-key-file ' +
        "'/k/my key.txt' resume j-1; see `taskctl --profile p2 --base-url http://127.0.0.1:8787/api/v1 --api-key-file " +
        "'/k/my key.txt' show --job j-1` and taskctl --profile p2 --base-url http://127.0.0.1:8787/api/v1 --api-key-file " +
        "'/k/my key.txt' jobs",
    );
  });

  it('names a relative key file by its absolute path, which names the same file from any directory', () => {
    const relativeKey = hintGlobals({ apiKeyFile: 'keys/../key.txt' });
    expect(relativeKey?.('still running: taskctl wait 7')).toBe(
      `still running: taskctl --api-key-file ${shellWord(join(process.cwd(), 'key.txt'))} wait 7`,
    );
  });

  it("keeps a flag the command names itself, and adds the run's others after `taskctl`", () => {
    const only = hintGlobals({ profile: 'p2', baseUrl: 'https://x.test' });
    expect(only?.('Pass it once: `taskctl auth login --base-url URL`.')).toBe(
      'Pass it once: `taskctl --profile p2 auth login --base-url URL`.',
    );
    expect(only?.('create it: `taskctl --profile staging auth login --base-url=URL`')).toBe(
      'create it: `taskctl --profile staging auth login --base-url=URL`',
    );
    expect(only?.('create it: `taskctl --profile staging auth login`')).toBe(
      'create it: `taskctl --base-url https://x.test --profile staging auth login`',
    );
    const stdin = hintGlobals({ profile: 'p2', apiKeyFile: '-' });
    expect(stdin?.('try `pass show taskctl | taskctl --api-key-file - balance`')).toBe(
      'try `pass show taskctl | taskctl --profile p2 --api-key-file - balance`',
    );
  });

  it('leaves a command that names every flag of the run, and what is no command of an account; is idempotent', () => {
    const only = hintGlobals({ profile: 'p2', baseUrl: 'https://x.test' });
    for (const text of [
      'create it: `taskctl --profile staging auth login --base-url URL`',
      'Create one: `taskctl auth login --profile NAME --base-url URL`.',
      'run `taskctl sandbox` in another terminal',
      'Run `taskctl create --help` for usage and examples.',
      'All flags: taskctl --help; one command: taskctl <command> --help',
      'This is a bug in taskctl: please report it',
      'taskctl reads it as still running',
      '/usr/bin/taskctl show 1',
    ])
      expect(only?.(text)).toBe(text);
    const once = only?.('still running: taskctl wait 1 2') ?? '';
    expect(only?.(once)).toBe(once);
    expect(once).toBe('still running: taskctl --profile p2 --base-url https://x.test wait 1 2');
  });

  it("a command ends with its sentence: a flag named in the next one is not the command's", () => {
    const only = hintGlobals({ profile: 'p2' });
    expect(only?.('Continue it with: taskctl resume j-abc123. The key read with --api-key-file stays the same')).toBe(
      'Continue it with: taskctl --profile p2 resume j-abc123. The key read with --api-key-file stays the same',
    );
  });

  it('a run with none of the flags is left alone; a profile named with quotes is quoted', () => {
    expect(hintGlobals({})).toBeUndefined();
    expect(hintGlobals({ profile: "bob's" })?.('taskctl jobs')).toBe(String.raw`taskctl --profile 'bob'\''s' jobs`);
    expect(shellWords(String.raw`taskctl --profile 'bob'\''s' jobs`)).toEqual([
      'taskctl',
      '--profile',
      "bob's",
      'jobs',
    ]);
  });

  it('a key from stdin is not repeated: said once, after the first hint, that it goes in the same way again', () => {
    const stdin = hintGlobals({ profile: 'p2', apiKeyFile: '-' });
    expect(stdin?.('no hint here')).toBe('no hint here');
    expect(stdin?.('still running: taskctl wait 7')).toBe(
      `still running: taskctl --profile p2 wait 7\n${KEY_FROM_STDIN_NOTE}`,
    );
    expect(stdin?.('the latest: taskctl show 7')).toBe('the latest: taskctl --profile p2 show 7');
  });

  it("a key from the shell's <(…) (/dev/fd/63, /proc/self/fd/N) is not repeated either: it is gone with the run", () => {
    for (const file of ['/dev/fd/63', '/proc/self/fd/12', '/dev/stdin']) {
      const fd = hintGlobals({ apiKeyFile: file });
      const said = fd?.('Continue it with: taskctl resume j-mx6f7y12yo00 --yes') ?? '';
      expect(said).not.toContain('--api-key-file');
      expect(said).toBe(
        `Continue it with: taskctl resume j-mx6f7y12yo00 --yes\nThe API key came from ${file}, which only this run could read (a <(…) of the shell): give it to that command the same way.`,
      );
    }
  });

  it('the note about a key from a stream waits for a command that needs the key: `taskctl jobs` reads only this machine', () => {
    const fd = hintGlobals({ apiKeyFile: '/dev/fd/63' });
    expect(fd?.('job j-mx6f7y12yo00: taskctl jobs')).toBe('job j-mx6f7y12yo00: taskctl jobs');
    expect(fd?.('Continue it with: taskctl resume j-mx6f7y12yo00 --yes')).toBe(
      'Continue it with: taskctl resume j-mx6f7y12yo00 --yes\nThe API key came from /dev/fd/63, which only this run could read (a <(…) of the shell): give it to that command the same way.',
    );
  });

  it('names every command of the tree but `sandbox` and `completion`', () => {
    const program = buildProgram(createMemoryIO().io, () => Promise.resolve());
    const commands = program.commands.map((command) => command.name()).filter((name) => !name.startsWith('_'));
    expect([...ACCOUNT_COMMANDS, 'sandbox', 'completion'].sort()).toEqual(commands.sort());
    expect([...COMMANDS].sort()).toEqual(commands.sort());
  });
});

describe('a relative TASKCTL_STATE_DIR: a job in a command is named by its journal', () => {
  const files: Record<string, string> = { 'j-abc123': '/state dir/jobs/j-abc123.jsonl' };
  const jobFile = (id: string) => files[id];

  it('in every command a message names, its path quoted for a shell; the id elsewhere, and an unknown one, stay', () => {
    const rewrite = hintGlobals({}, jobFile);
    expect(rewrite?.('job j-abc123: Continue it with: taskctl resume j-abc123; taskctl show --job j-zzz999')).toBe(
      "job j-abc123: Continue it with: taskctl resume '/state dir/jobs/j-abc123.jsonl'; taskctl show --job j-zzz999",
    );
    expect(rewrite?.('Continue: taskctl resume j-abc123. Job j-abc123 is yours')).toBe(
      "Continue: taskctl resume '/state dir/jobs/j-abc123.jsonl'. Job j-abc123 is yours",
    );
    expect(hintGlobals({ profile: 'p2' }, jobFile)?.('still running: taskctl wait --job j-abc123')).toBe(
      "still running: taskctl --profile p2 wait --job '/state dir/jobs/j-abc123.jsonl'",
    );
  });
});

describe('a relative TASKCTL_STATE_DIR, followed verbatim', () => {
  let world: World;
  let dir: string;
  worldEachTest('taskctl-relative-state-', (w, d) => ((world = w), (dir = d)));

  it('the hint of an interrupted create runs from another directory, where the variable names another state directory', async () => {
    const here = { ...world.env, TASKCTL_STATE_DIR: relative(process.cwd(), join(dir, 'here')) };
    const created = await stoppedInChunk2Check(world, (stop) =>
      runTaskctl(['create', S, 'a.com', 'b.com', 'c.com', '--chunk-size', '1', '-q'], {
        env: here,
        home: dir,
        ...stop,
      }),
    );
    expect(created.code, created.stderr).toBe(130);
    const hint = /Continue it with: (taskctl .*)$/m.exec(created.stderr)?.[1] ?? '';
    expect(hint).toMatch(new RegExp(`^taskctl resume ${join(dir, 'here', 'jobs')}/j-[0-9a-z]+\\.jsonl$`));
    // The same relative value from another directory: another state directory, which knows no such job id.
    const elsewhere = { ...world.env, TASKCTL_STATE_DIR: relative(process.cwd(), join(dir, 'elsewhere')) };
    const resumed = await runTaskctl([...shellWords(hint).slice(1), '-q'], {
      env: elsewhere,
      home: dir,
      clock: world.clock,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await world.tasks()).map((task) => task.total_items)).toEqual([1, 1, 1]);
  });
});

describe('hints of a run with --profile, followed verbatim', () => {
  let world: World;
  let dir: string;
  worldEachTest('taskctl-hint-globals-', (w, d) => ((world = w), (dir = d)));
  /** No base URL or key in the environment: only the profile (or the flags) say where and as whom. */
  const run = (argv: string[], options: RunOptions = {}) =>
    runTaskctl(argv, { env: { NO_COLOR: '1' }, clock: world.clock, home: dir, ...options });
  const login = async (profile: string) => {
    const result = await run(['--profile', profile, 'auth', 'login', '--base-url', world.sandbox.url, '--with-key'], {
      stdin: `${world.sandbox.apiKey}\n`,
    });
    expect(result.code, result.stderr).toBe(0);
  };

  it('an interrupted create says `taskctl --profile p2 resume ID`, which continues the job; stdout has ids only', async () => {
    await login('p2');
    const created = await stoppedInChunk2Check(world, (stop) =>
      run(['--profile', 'p2', 'create', S, 'a.com', 'b.com', 'c.com', '--chunk-size', '1', '-q'], stop),
    );
    expect(created.code, created.stderr).toBe(130);
    const hint = /Continue it with: (taskctl .*)$/m.exec(created.stderr)?.[1] ?? '';
    expect(hint).toMatch(/^taskctl --profile p2 resume j-[0-9a-z]+$/);
    expect(created.stdout).toMatch(/^(\d+\n)+$/);
    const resumed = await run([...shellWords(hint).slice(1), '-q']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await world.tasks()).map((task) => task.total_items)).toEqual([1, 1, 1]);
  });

  it('a timed-out wait with --base-url and --api-key-file says how to go on with both; that command runs', async () => {
    const { run: slow, sandbox } = await sandboxRun(60_000);
    const key = join(dir, 'key file');
    writeFileSync(key, `${sandbox.apiKey}\n`);
    const noEnv = { env: { TASKCTL_BASE_URL: undefined, TASKCTL_API_KEY: undefined }, home: dir };
    const flags = ['--base-url', sandbox.url, '--api-key-file', key];
    const created = await slow([...flags, 'create', S, 'a.com', '-q'], noEnv);
    expect(created.code, created.stderr).toBe(0);
    const id = created.stdout.trim();
    const waited = await slow([...flags, 'wait', id, '--timeout', '5s'], noEnv);
    expect(waited.code, waited.stderr).toBe(124);
    const hint = /still running: (taskctl .*)$/m.exec(waited.stderr)?.[1] ?? '';
    expect(hint).toBe(`taskctl --base-url ${sandbox.url} --api-key-file '${key}' wait ${id}`);
    const again = await slow(shellWords(hint).slice(1), noEnv);
    expect(again.code, again.stderr).toBe(0);
  });

  it('a relative --api-key-file is repeated by its absolute path: the hints of an interrupted create run from another directory', async () => {
    const here = join(dir, 'here');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(here);
    mkdirSync(elsewhere);
    const key = join(here, 'my key.txt');
    writeFileSync(key, `${world.sandbox.apiKey}\n`);
    const cwd = process.cwd();
    let created: Awaited<ReturnType<typeof run>>;
    let jobs: Awaited<ReturnType<typeof run>>;
    let resumed: Awaited<ReturnType<typeof run>>;
    try {
      process.chdir(here);
      const argv = ['--base-url', world.sandbox.url, '--api-key-file', 'my key.txt'];
      created = await stoppedInChunk2Check(world, (stop) =>
        run([...argv, 'create', S, 'a.com', 'b.com', 'c.com', '--chunk-size', '1', '-q'], stop),
      );
      expect(created.code, created.stderr).toBe(130);
      const flags = `--base-url ${world.sandbox.url} --api-key-file '${key}'`;
      const jobsHint = /^job j-[0-9a-z]+: (taskctl .*)$/m.exec(created.stderr)?.[1] ?? '';
      expect(jobsHint, created.stderr).toBe(`taskctl ${flags} jobs`);
      const hint = /Continue it with: (taskctl .*)$/m.exec(created.stderr)?.[1] ?? '';
      expect(hint.replace(/j-[0-9a-z]+/, 'JOB'), created.stderr).toBe(`taskctl ${flags} resume JOB`);
      process.chdir(elsewhere);
      jobs = await run(shellWords(jobsHint).slice(1));
      resumed = await run([...shellWords(hint).slice(1), '-q']);
    } finally {
      process.chdir(cwd);
    }
    expect(jobs.code, jobs.stderr).toBe(0);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await world.tasks()).map((task) => task.total_items)).toEqual([1, 1, 1]);
  });

  it("an error's hint printed by main names the profile too", async () => {
    await login('p2');
    const result = await run(['--profile', 'p2', 'wait', '--job', 'j-nosuchjob']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/`taskctl --profile p2 jobs --all` lists/);
  });
});

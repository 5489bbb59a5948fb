/** Prompts as a person meets them, in a real terminal (tmux): the cost confirmation and the hidden key prompt. */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startWorld, waitFor, type E2EWorld } from './harness.js';
import { missing, skippedUnless } from '../skip-reason.js';

const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let world: E2EWorld;
const session = `taskctl-prompt-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', session, ...args], { encoding: 'utf8' });

beforeAll(async () => {
  if (!hasTmux) return;
  world = await startWorld({ itemMs: 0 });
  // Every create below costs more than this, so a terminal run must ask.
  await world.run(['config', 'set', 'confirm-above', '5']);
});
afterAll(async () => {
  if (!hasTmux) return;
  try {
    tmux('kill-server');
  } catch {
    // Already gone.
  }
  await world.close();
});

/** Runs a shell command line in a fresh tmux window with the world's environment; returns a screen reader. */
function start(name: string, commandLine: string, env: Record<string, string>): () => string {
  // env -i: nothing from the test runner's environment (CI=true above all, which turns prompts off) reaches the CLI.
  const exports = Object.entries({ ...env, PATH: process.env.PATH ?? '', TERM: 'xterm-256color' })
    .map(([key, value]) => `${key}='${value}'`)
    .join(' ');
  const script = `env -i ${exports} ${process.execPath} ${BIN} ${commandLine}; echo "EXIT=$?"; sleep 30`;
  try {
    tmux('new-session', '-d', '-s', name, '-x', '150', '-y', '40', script);
  } catch {
    tmux('new-window', '-t', session, '-n', name, script);
  }
  return () => tmux('capture-pane', '-p', '-t', name);
}

async function until(screen: () => string, pattern: RegExp, timeoutMs = 10_000): Promise<string> {
  let text = '';
  return waitFor(() => ((text = screen()), pattern.test(text) && text), {
    timeoutMs,
    everyMs: 40, // capture-pane blocks this process, where the sandbox runs: room between two looks
    describe: () => `the screen never matched ${pattern}:\n${text}`,
  });
}

const taskCount = async () => (await world.admin<{ tasks: unknown[] }>('GET', '/__sandbox/state')).tasks.length;
/** The items of every task the sandbox holds, sorted. */
async function taskItems(): Promise<string[]> {
  const { tasks } = await world.admin<{ tasks: Array<{ id: number }> }>('GET', '/__sandbox/state');
  const items = await Promise.all(
    tasks.map(async ({ id }) => {
      const response = await fetch(`${world.sandbox.url}/tasks/${id}`, {
        headers: { 'X-API-Key': world.sandbox.apiKey },
      });
      const { data } = (await response.json()) as { data: { items: Array<{ target: string }> } };
      return data.items.map((item) => item.target);
    }),
  );
  return items.flat().sort();
}

describe.skipIf(!hasTmux)(skippedUnless('prompts in a terminal', hasTmux, missing('tmux')), () => {
  it('asks before spending at least confirm-above coins, with the balance now and after; "n" is exit 13', async () => {
    const screen = start('deny', 'create domain_whois_history a.com b.com', world.env);
    const asked = await until(screen, /\[y\/N\]/);
    expect(asked).toMatch(/Create domain_whois_history for 2 items: 10 coins \(balance [\d,]+ → [\d,]+\)\? \[y\/N\]/);
    tmux('send-keys', '-t', 'deny', 'n', 'Enter');
    const text = await until(screen, /EXIT=\d+/);
    expect(text).toMatch(/Nothing was created\.\nTo go ahead without the question: add --yes/);
    expect(text).not.toMatch(/error/);
    expect(text).toMatch(/EXIT=13/);
    expect(await taskCount()).toBe(0);
  }, 20_000);

  it('Ctrl-C at the prompt is exit 130 and Ctrl-D exit 13, both saying nothing was created', async () => {
    // Two terminals at once: each waits for its own prompt and answers it.
    const interrupted = start('ctrlc', 'create domain_whois_history a.com', world.env);
    const ended = start('ctrld', 'create domain_whois_history a.com', world.env);
    const [text, closed] = await Promise.all([
      (async () => {
        await until(interrupted, /\[y\/N\]/);
        tmux('send-keys', '-t', 'ctrlc', 'C-c');
        return until(interrupted, /EXIT=\d+/);
      })(),
      (async () => {
        await until(ended, /\[y\/N\]/);
        tmux('send-keys', '-t', 'ctrld', 'C-d');
        return until(ended, /EXIT=\d+/);
      })(),
    ]);
    expect(text).toMatch(/cancelled at the confirmation; nothing was created/);
    expect(text).toMatch(/EXIT=130/);
    expect(closed).toMatch(/No answer \(the input ended\): nothing was created\./);
    expect(closed).toMatch(/EXIT=13/);
    expect(await taskCount()).toBe(0);
  }, 20_000);

  it('"y" creates the task; --yes never asks; a pipe is refused without --yes', async () => {
    // Three creates at once, each of its own item: the sandbox then holds exactly one task for each.
    const screen = start('accept', 'create domain_whois_history c.com', world.env);
    const yes = start('yes', 'create domain_whois_history e.com --yes', world.env);
    const [accepted, piped, text] = await Promise.all([
      (async () => {
        await until(screen, /\[y\/N\]/);
        tmux('send-keys', '-t', 'accept', 'y', 'Enter');
        return until(screen, /EXIT=\d+/);
      })(),
      world.run(['create', 'domain_whois_history', 'd.com', '--yes']),
      until(yes, /EXIT=\d+/),
    ]);
    expect(accepted).toMatch(/EXIT=0/);
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toMatch(/\[y\/N\]/);
    expect(text).toMatch(/EXIT=0/);
    expect(text).not.toMatch(/\[y\/N\]/);
    expect(await taskItems()).toEqual(['c.com', 'd.com', 'e.com']);
    const refused = await world.run(['create', 'domain_whois_history', 'z.com']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/no terminal to confirm on; nothing was created\nPass --yes/);
    expect(await taskItems()).toEqual(['c.com', 'd.com', 'e.com']);
  }, 20_000);

  it('auth login hides the key as it is typed', async () => {
    const env = { ...world.home.env, TASKCTL_CONFIG_DIR: `${world.home.dir}/login-config` };
    const screen = start('login', `auth login --base-url ${world.sandbox.origin}`, env);
    await until(screen, /API key \(input hidden\):/);
    tmux('send-keys', '-t', 'login', '-l', world.sandbox.apiKey);
    tmux('send-keys', '-t', 'login', 'Enter');
    const text = await until(screen, /EXIT=\d+/);
    expect(text).toMatch(/Logged in to/);
    expect(text).toMatch(/EXIT=0/);
    expect(text).not.toContain(world.sandbox.apiKey);
  }, 20_000);
});

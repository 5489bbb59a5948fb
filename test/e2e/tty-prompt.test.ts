/** Prompts as a person meets them, in a real terminal (tmux): the cost confirmation and the hidden key prompt (Enter, Ctrl-D). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type E2EWorld } from './spawn-cli.js';
import { hasTmux, openTerminal, type Terminal } from './tmux.js';
import { missing, skippedUnless } from '../skip-reason.js';

let world: E2EWorld;
let terminal: Terminal | undefined;

beforeAll(async () => {
  if (!hasTmux) return;
  world = await startWorld({ itemMs: 0 });
  terminal = openTerminal('prompt');
  // Every create below costs more than this, so a terminal run must ask.
  await world.inProcess(['config', 'set', 'confirm-above', '5']);
});
afterAll(async () => {
  if (!hasTmux) return;
  terminal?.close();
  await world.close();
});

/** `taskctl args` in a terminal with `env` (and nothing else: CI=true above all, which turns prompts off). */
function start(args: string[], env: Record<string, string>) {
  if (!terminal) throw new Error('tmux is not installed');
  return terminal.start(150, args, env, 40);
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
    const deny = start(['create', 'domain_whois_history', 'a.com', 'b.com'], world.env);
    try {
      const asked = await deny.until(/\[y\/N\]/);
      expect(asked).toMatch(/Create domain_whois_history for 2 items: 10 coins \(balance [\d,]+ → [\d,]+\)\? \[y\/N\]/);
      await deny.keys('n', 'Enter');
      const text = await deny.exited();
      expect(text).toMatch(
        /Nothing was created\.\nThe question comes from [\d,]+ coins up \(the confirm-above setting\); to go ahead\s+without it: taskctl create domain_whois_history a\.com b\.com --yes/,
      );
      expect(text).not.toMatch(/error/);
      expect(text).toMatch(/EXIT=13/);
      expect(await taskCount()).toBe(0);
    } finally {
      await deny.close();
    }
  }, 60_000);

  it('Ctrl-C at the prompt is exit 130 and Ctrl-D exit 13, both saying nothing was created', async () => {
    // Two terminals at once: each waits for its own prompt and answers it.
    const interrupted = start(['create', 'domain_whois_history', 'a.com'], world.env);
    const ended = start(['create', 'domain_whois_history', 'a.com'], world.env);
    try {
      const [text, closed] = await Promise.all([
        (async () => {
          await interrupted.until(/\[y\/N\]/);
          await interrupted.keys('C-c');
          return interrupted.exited();
        })(),
        (async () => {
          await ended.until(/\[y\/N\]/);
          await ended.keys('C-d');
          return ended.exited();
        })(),
      ]);
      expect(text).toMatch(/cancelled at the confirmation; nothing was created/);
      expect(text).toMatch(/EXIT=130/);
      expect(closed).toMatch(/No answer \(the input ended\): nothing was created\./);
      expect(closed).toMatch(/EXIT=13/);
      expect(await taskCount()).toBe(0);
    } finally {
      await Promise.all([interrupted.close(), ended.close()]);
    }
  }, 60_000);

  it('"y" creates the task; --yes never asks; a pipe is refused without --yes', async () => {
    // The terminal is for the question and its answer. The rest is the decision, not the process: in process, piped
    // (stdin and stdout not terminals); --yes on a terminal never asking is test/unit/commands/create/prompt.test.ts.
    const accept = start(['create', 'domain_whois_history', 'c.com'], world.env);
    try {
      const [accepted, piped] = await Promise.all([
        (async () => {
          await accept.until(/\[y\/N\]/);
          await accept.keys('y', 'Enter');
          return accept.exited();
        })(),
        world.inProcess(['create', 'domain_whois_history', 'd.com', '--yes']),
      ]);
      expect(accepted).toMatch(/EXIT=0/);
      expect(piped.code).toBe(0);
      expect(piped.stderr).not.toMatch(/\[y\/N\]/);
      expect(await taskItems()).toEqual(['c.com', 'd.com']);
      const refused = await world.inProcess(['create', 'domain_whois_history', 'z.com']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/no terminal to confirm on; nothing was created\nPass --yes/);
      expect(await taskItems()).toEqual(['c.com', 'd.com']);
    } finally {
      await accept.close();
    }
  }, 60_000);

  it('auth login hides the key as it is typed', async () => {
    const env = { ...world.home.env, TASKCTL_CONFIG_DIR: `${world.home.dir}/login-config` };
    const login = start(['auth', 'login', '--base-url', world.sandbox.origin], env);
    try {
      await login.until(/API key \(input hidden\):/);
      await login.keys('-l', world.sandbox.apiKey);
      await login.keys('Enter');
      const text = await login.exited();
      expect(text).toMatch(/Logged in to/);
      expect(text).toMatch(/EXIT=0/);
      expect(text).not.toContain(world.sandbox.apiKey);
    } finally {
      await login.close();
    }
  }, 60_000);

  it('Ctrl-D at the hidden key prompt is exit 13, nothing saved (as at the confirmation, not an interrupt)', async () => {
    const env = { ...world.home.env, TASKCTL_CONFIG_DIR: `${world.home.dir}/ended-config` };
    const login = start(['auth', 'login', '--base-url', world.sandbox.origin], env);
    try {
      await login.until(/API key \(input hidden\):/);
      await login.keys('-l', 'sk_part');
      await login.keys('C-d');
      const text = await login.exited();
      expect(text).toMatch(/No key given \(the input ended\): nothing was saved\./);
      expect(text).not.toMatch(/error|sk_part/);
      expect(text).toMatch(/EXIT=13/);
    } finally {
      await login.close();
    }
  }, 60_000);
});

/**
 * What a person meets at 40, 80 and 120 columns, colours on, in a real terminal (tmux): `services`, `list`, `show`,
 * `create --wait` with a failed item, `wait` on many tasks and a bare `taskctl`. No line is wider than the pane, none
 * is wrapped by the terminal, and no word is split across lines. Skipped without tmux.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type E2EWorld } from './harness.js';
import { hasTmux, openTerminal, type Screen, type Terminal } from './tmux.js';
import { textWidth } from '../../src/output/width.js';
import { missing, skippedUnless } from '../skip-reason.js';

let world: E2EWorld;
let terminal: Terminal | undefined;
const waited: number[] = [];
let domainTask = 0;

async function createTask(service: string, items: string[]): Promise<{ id: number; created_at: string }> {
  const response = await fetch(`${world.sandbox.url}/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': world.sandbox.apiKey },
    body: JSON.stringify({ service, items }),
  });
  return ((await response.json()) as { data: { id: number; created_at: string } }).data;
}

let created = '';

beforeAll(async () => {
  world = await startWorld({ itemMs: 0, rateLimit: 0 });
  const domain = await createTask('domain_check_availability', ['example.com', 'fail-bad.com', 'an-example.org']);
  domainTask = domain.id;
  created = domain.created_at;
  for (let i = 0; i < 12; i++) waited.push((await createTask('domain_whois_history', [`x${i}.com`])).id);
  if (hasTmux) terminal = openTerminal('widths');
});

afterAll(async () => {
  terminal?.close();
  await world.close();
});

function screenOf(width: number, args: string[]): Promise<Screen> {
  if (!terminal) throw new Error('tmux is not installed');
  return terminal.screenOf(width, args, world.env, 200);
}

/** Every line within the pane, none wrapped by the terminal, and none of `words` split across two lines. */
function expectFits(result: Screen, width: number, exit: number, words: readonly string[]) {
  expect(result.screen).toContain(`EXIT=${exit}`);
  const lines = result.screen.trimEnd().split('\n');
  expect(result.joined.trimEnd().split('\n')).toEqual(lines);
  for (const line of lines) expect(textWidth(line), line).toBeLessThanOrEqual(width);
  for (const word of words) {
    expect(result.screen, word).toContain(word);
    for (let k = 1; k < word.length; k++) {
      const split = `${word.slice(0, k)}\n`;
      const at = result.screen.indexOf(split);
      if (at >= 0)
        expect(
          result.screen
            .slice(at + split.length)
            .trimStart()
            .startsWith(word.slice(k)),
          word,
        ).toBe(false);
    }
  }
}

describe.skipIf(!hasTmux)(
  skippedUnless('every width from 40 columns', hasTmux, missing('tmux')),
  { concurrent: true },
  () => {
    for (const width of [40, 80, 120]) {
      it(`services at ${width} columns`, async () => {
        const result = await screenOf(width, ['services']);
        expectFits(result, width, 0, ['DESCRIPTION', 'domain_check_availability', 'Checks', 'SERVICE', 'PRICE']);
      });

      it(`list at ${width} columns`, async () => {
        const result = await screenOf(width, ['list']);
        expectFits(result, width, 0, ['completed', 'domain_check_availability', 'domain_whois_history', 'CREATED']);
        expect(result.screen).toMatch(/(ago|just now)$/m);
      });

      it(`show at ${width} columns`, async () => {
        const result = await screenOf(width, ['show', String(domainTask)]);
        expectFits(result, width, 0, [created, 'Simulated', 'failure', 'completed', 'fail-bad.com', 'an-example.org']);
        // A timestamp's age stays whole: `(8m ago)`, never `(8m` / `ago)`.
        expect(result.screen).toMatch(/\((\d+[smhd] ago|just now)\)/);
        expect(result.screen).not.toMatch(/\(\d+[smhd]\n/);
      });

      it(`create --wait with a failed item at ${width} columns`, async () => {
        const result = await screenOf(width, [
          'create',
          'domain_check_availability',
          'a.com',
          'fail-b.com',
          '--wait',
          '--yes',
        ]);
        expectFits(result, width, 11, ['Simulated', 'failure', '100%', 'fail-b.com', 'completed']);
      });

      it(`wait on many tasks at ${width} columns`, async () => {
        const result = await screenOf(width, ['wait', ...waited.map(String)]);
        expectFits(result, width, 0, ['domain_whois_history', 'completed', ...waited.map(String)]);
      });

      it(`a bare taskctl at ${width} columns`, async () => {
        const result = await screenOf(width, []);
        expectFits(result, width, 0, ['domain_check_availability', '--sandbox', '--base-url', 'completion']);
      });
    }
  },
);

/** A spinner's line while it spins: as wide as the pane at most, on one line (a wrapped one splits its words). */
describe.skipIf(!hasTmux)(skippedUnless('spinners at every width', hasTmux, missing('tmux')), () => {
  for (const width of [40, 80, 120]) {
    it(`the check-the-task-list spinner after a lost answer at ${width} columns`, async () => {
      const own = await startWorld({ itemMs: 0, rateLimit: 0 });
      // The create's answer is lost after the task was made; the task list answers 4 s late, so the check spins.
      await own.admin('POST', '/__sandbox/faults', { method: 'POST', path: '/tasks', kind: 'reset-after', count: 1 });
      await own.admin('POST', '/__sandbox/faults', { method: 'GET', path: '/tasks', kind: 'delay', delayMs: 4000 });
      const running = terminal!.start(width, ['create', 'domain_check_availability', 'a.com', '--yes'], own.env, 20);
      try {
        // A spinner frame: a braille glyph, then its text, on the last line of the screen.
        const screen = await running.until(/^[\u2800-\u28ff] \S.*\n*$/m);
        const lines = screen.trimEnd().split('\n');
        const spinner = lines.at(-1) ?? '';
        expect(spinner, screen).toMatch(/^[\u2800-\u28ff] /);
        expect(textWidth(spinner), screen).toBeLessThanOrEqual(width - 1);
        // Nothing of it wrapped onto a line below (the screen ends with it).
        expect(screen.slice(screen.indexOf(spinner) + spinner.length).trim(), screen).toBe('');
        await running.until(/EXIT=\d+/);
      } finally {
        await running.close();
        await own.close();
      }
    });
  }
});

/**
 * What a person meets at 40, 80 and 120 columns, colours on: `services`, `list`, `show`, `create --wait` with a failed
 * item, `wait` on many tasks and a bare `taskctl`. No line is wider than the terminal and no word is split across
 * lines. The output layer renders for a given column count, so these screens are rendered in this process (stdout and
 * stderr terminals of that width, against a sandbox), every frame of the live block included; the same screens in a
 * real terminal, where the terminal's own wrapping and colours are the subject, are tty-tables.test.ts (services, list,
 * show at 80, whose checks of the tables' contents are made here too from 80 columns) and tty-results.test.ts (create --wait at 80,
 * whose results table is checked here too from 80 columns; the overview and a many-task wait). One real terminal
 * here: the check-the-task-list spinner after a lost answer, at 40 columns (a spinner's text at every width is
 * test/unit/output/width.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type E2EWorld } from './spawn-cli.js';
import { hasTmux, openTerminal, type Terminal } from './tmux.js';
import { FakeClock } from '../clock.js';
import { runTaskctl } from '../unit/commands/run-in-process.js';
import { textWidth } from '../../src/output/width.js';
import { missing, skippedUnless } from '../skip-reason.js';

let world: E2EWorld;
const waited: number[] = [];
let domainTask = 0;
let emailTask = 0;

let created = '';

beforeAll(async () => {
  world = await startWorld({ itemMs: 0, rateLimit: 0 });
  const domain = await world.createTask('domain_check_availability', ['example.com', 'fail-bad.com', 'an-example.org']);
  domainTask = domain.id;
  created = domain.created_at;
  emailTask = (await world.createTask('email_verify', ['someone@example.com'])).id;
  for (let i = 0; i < 12; i++) waited.push((await world.createTask('domain_whois_history', [`x${i}.com`])).id);
});

afterAll(async () => {
  await world.close();
});

interface Rendered {
  code: number;
  /** `drawn` as one text. */
  screen: string;
  /** Every line ever drawn: the live block's frames, split where the cursor moves. */
  drawn: string[];
}

/** Any escape sequence: colours (SGR) and the live block's cursor moves and line clears. */
const CSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** `taskctl args` in this process, as it writes to a `width`-column terminal (both streams, colours on). */
async function render(width: number, args: string[]): Promise<Rendered> {
  const result = await runTaskctl(args, {
    env: { ...world.env, TERM: 'xterm-256color' },
    home: world.home.dir,
    clock: new FakeClock(Date.now()),
    stdoutTTY: true,
    stderrTTY: true,
    columns: width,
    rows: 200,
  });
  const all = result.stdout + result.stderr;
  // A cursor move or a line clear ends what was drawn on that line; a colour does not.
  const drawn = all
    .replace(/\x1b\[[0-9;?]*[A-Za-ln-z]/g, '\n')
    .replace(CSI, '')
    .split(/[\r\n]/);
  return { code: result.code, screen: drawn.join('\n'), drawn };
}

/** The screen as a terminal shows it: no spaces at a line's end. */
const trimmed = (result: Rendered) => result.drawn.map((line) => line.trimEnd()).join('\n');

/** Every line within the width, none of `words` split across two lines. */
function expectFits(result: Rendered, width: number, exit: number, words: readonly string[]) {
  expect(result.code, result.screen).toBe(exit);
  // Short of the last column: a line that touches it wraps in some terminals (src/output/width.ts).
  for (const line of result.drawn) expect(textWidth(line), line).toBeLessThan(width);
  const text = result.screen;
  for (const word of words) {
    expect(text, word).toContain(word);
    for (let k = 1; k < word.length; k++) {
      const split = `${word.slice(0, k)}\n`;
      const at = text.indexOf(split);
      if (at >= 0)
        expect(
          text
            .slice(at + split.length)
            .trimStart()
            .startsWith(word.slice(k)),
          word,
        ).toBe(false);
    }
  }
}

describe('every width from 40 columns, rendered for the terminal', { concurrent: true }, () => {
  for (const width of [40, 80, 120]) {
    it(`services at ${width} columns`, async () => {
      const result = await render(width, ['services']);
      expectFits(result, width, 0, ['DESCRIPTION', 'domain_check_availability', 'Checks', 'SERVICE', 'PRICE']);
      if (width < 80) return;
      // Headers whole, descriptions cut at a word.
      const screen = trimmed(result);
      expect(screen).toMatch(/^SERVICE +.*PRICE +.*DESCRIPTION$/m);
      expect(screen).toMatch(/^domain_check_availability .* 1 .*Checks whether each/m);
      expect(screen).toMatch(/[a-z,)]…$/m);
      expect(screen).not.toMatch(/\S…\S/);
    });

    it(`list at ${width} columns`, async () => {
      const result = await render(width, ['list']);
      expectFits(result, width, 0, ['completed', 'domain_check_availability', 'domain_whois_history', 'CREATED']);
      expect(result.screen).toMatch(/(ago|just now)$/m);
      if (width < 80) return;
      // Ages and the items column.
      const screen = trimmed(result);
      expect(screen).toMatch(/^ID +SERVICE +STATUS +ITEMS +COST +CREATED/m);
      expect(screen).toMatch(
        new RegExp(`^ *${domainTask} +domain_check_availability +completed +2/3, 1 failed .*(ago|just now)`, 'm'),
      );
      expect(screen).not.toMatch(/\d{4}-\d\d-\d\dT/);
    });

    it(`show of two tasks at ${width} columns`, async () => {
      const result = await render(width, ['show', String(domainTask), String(emailTask)]);
      expectFits(result, width, 0, [created, 'Simulated', 'failure', 'completed', 'fail-bad.com', 'an-example.org']);
      // A timestamp's age stays whole: `(8m ago)`, never `(8m` / `ago)`.
      expect(result.screen).toMatch(/\((\d+[smhd] ago|just now)\)/);
      expect(result.screen).not.toMatch(/\(\d+[smhd]\n/);
      if (width < 80) return;
      const screen = trimmed(result);
      expect(screen).toMatch(/^Items: +3 \(2 completed, 1 failed\)$/m);
      expect(screen).toMatch(/^TARGET +STATUS +AVAILABLE +ERROR$/m);
      expect(screen).toMatch(/^TARGET +STATUS +DELIVERABLE/m);
    });

    it(`create --wait with a failed item at ${width} columns`, async () => {
      const result = await render(width, [
        'create',
        'domain_check_availability',
        'a.com',
        'fail-b.com',
        '--wait',
        '--yes',
      ]);
      expectFits(result, width, 11, ['Simulated', 'failure', '100%', 'fail-b.com', 'completed']);
      if (width < 80) return;
      // The results table.
      const screen = trimmed(result);
      expect(screen).toMatch(/^TARGET +STATUS +AVAILABLE +ERROR$/m);
      expect(screen).toMatch(/^a\.com +completed +(true|false) +-$/m);
      expect(screen).toMatch(/^fail-b\.com +failed +- +\S/m);
    });

    it(`wait on many tasks at ${width} columns`, async () => {
      const result = await render(width, ['wait', ...waited.map(String)]);
      expectFits(result, width, 0, ['domain_whois_history', 'completed', ...waited.map(String)]);
    });

    it(`a bare taskctl at ${width} columns`, async () => {
      const result = await render(width, []);
      expectFits(result, width, 0, ['domain_check_availability', '--sandbox', '--base-url', 'completion']);
    });
  }
});

/** A spinner's line while it spins, in a real terminal: as wide as the pane at most, on one line (a wrapped one
 * splits its words). 40 columns: the narrowest, where the text must be cut. */
describe.skipIf(!hasTmux)(skippedUnless('a spinner in a real terminal', hasTmux, missing('tmux')), () => {
  let terminal: Terminal | undefined;
  afterAll(() => terminal?.close());

  it('the check-the-task-list spinner after a lost answer at 40 columns', async () => {
    terminal = openTerminal('widths');
    const own = await startWorld({ itemMs: 0, rateLimit: 0 });
    // The create's answer is lost after the task was made; the task list answers 4 s late, so the check spins.
    await own.admin('POST', '/__sandbox/faults', { method: 'POST', path: '/tasks', kind: 'reset-after', count: 1 });
    await own.admin('POST', '/__sandbox/faults', { method: 'GET', path: '/tasks', kind: 'delay', delayMs: 4000 });
    const running = terminal.start(40, ['create', 'domain_check_availability', 'a.com', '--yes'], own.env, 20);
    try {
      // A spinner frame: a braille glyph, then its text, on the last line of the screen.
      const screen = await running.until(/^[\u2800-\u28ff] checking the\S*.*\n*$/m);
      const lines = screen.trimEnd().split('\n');
      const spinner = lines.at(-1) ?? '';
      expect(spinner, screen).toMatch(/^[\u2800-\u28ff] checking the/);
      expect(textWidth(spinner), screen).toBeLessThanOrEqual(39);
      // Nothing of it wrapped onto a line below (the screen ends with it).
      expect(screen.slice(screen.indexOf(spinner) + spinner.length).trim(), screen).toBe('');
      // How the check ends is not this test's (test/hardening/wire.test.ts W4): the session is closed mid-check, and
      // close() waits until the taskctl it ran has exited.
    } finally {
      await running.close();
      await own.close();
    }
  });
});

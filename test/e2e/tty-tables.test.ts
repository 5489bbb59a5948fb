/**
 * Tables as people see them in a real terminal: tmux at 80 columns, colours on. `services`, `list` and `show` must
 * fit: no row wrapped onto a second screen line, no word broken. One terminal per table; the same tables at 40 and 120
 * columns (and at 80 again) are rendered in process with the same checks: tty-widths.test.ts. Skipped without tmux.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type E2EWorld } from './spawn-cli.js';
import { hasTmux, openTerminal, type Terminal } from './tmux.js';
import { textWidth } from '../../src/output/width.js';
import { missing, skippedUnless } from '../skip-reason.js';

let world: E2EWorld;
let terminal: Terminal | undefined;
let domainTask = 0;
let emailTask = 0;

/** A task straight on the sandbox (the subject here is showing it). */
const createTask = async (service: string, items: string[]) => (await world.createTask(service, items)).id;

beforeAll(async () => {
  world = await startWorld({ itemMs: 0 });
  domainTask = await createTask('domain_check_availability', ['example.com', 'fail-bad.com', 'an-example.org']);
  emailTask = await createTask('email_verify', ['someone@example.com']);
  for (const service of ['domain_whois_history', 'fanpage_extract_contact']) await createTask(service, ['x.com']);
  if (hasTmux) terminal = openTerminal('tables');
});

afterAll(async () => {
  terminal?.close();
  await world.close();
});

/** `taskctl args` in a `width`-column terminal with colour. */
function screenOf(width: number, args: string[]) {
  if (!terminal) throw new Error('tmux is not installed');
  return terminal.screenOf(width, args, world.env);
}

function expectFits(result: { screen: string; joined: string }, width: number) {
  expect(result.screen).toMatch(/EXIT=0/);
  const lines = result.screen.trimEnd().split('\n');
  expect(result.joined.trimEnd().split('\n')).toEqual(lines);
  for (const line of lines) expect(textWidth(line)).toBeLessThan(width);
}

/** A real terminal at 80 columns; 40 and 120 (and 80 again) are rendered in process: tty-widths.test.ts. */
const width = 80;

describe.skipIf(!hasTmux)(skippedUnless('tables in a terminal', hasTmux, missing('tmux')), { concurrent: true }, () => {
  it(`services fits ${width} columns, headers whole, descriptions cut at a word`, async () => {
    const result = await screenOf(width, ['services']);
    expectFits(result, width);
    expect(result.screen).toMatch(/^SERVICE +.*PRICE +.*DESCRIPTION$/m);
    expect(result.screen).toMatch(/^domain_check_availability .* 1 .*Checks whether each/m);
    expect(result.screen).toMatch(/[a-z,)]…$/m);
    expect(result.screen).not.toMatch(/\S…\S/);
  });

  it(`list fits ${width} columns with ages and the items column`, async () => {
    const result = await screenOf(width, ['list']);
    expectFits(result, width);
    expect(result.screen).toMatch(/^ID +SERVICE +STATUS +ITEMS +COST +CREATED/m);
    expect(result.screen).toMatch(
      new RegExp(`^ *${domainTask} +domain_check_availability +completed +2/3, 1 failed .*(ago|just now)`, 'm'),
    );
    expect(result.screen).not.toMatch(/\d{4}-\d\d-\d\dT/);
    // A completed task with a failed item is yellow, its status and its items, never green.
    expect(result.coloured).toContain('\x1b[33m2/3, 1 failed');
    expect(result.coloured).toMatch(/\x1b\[33mcompleted.*\x1b\[33m2\/3, 1 failed/);
  });

  it(`show of two tasks fits ${width} columns`, async () => {
    const result = await screenOf(width, ['show', String(domainTask), String(emailTask)]);
    expectFits(result, width);
    expect(result.screen).toMatch(/^Items: +3 \(2 completed, 1 failed\)$/m);
    expect(result.screen).toMatch(/^TARGET +STATUS +AVAILABLE +ERROR$/m);
    expect(result.screen).toMatch(/^TARGET +STATUS +DELIVERABLE/m);
  });

  it('balance is one line', async () => {
    const result = await screenOf(80, ['balance']);
    expect(result.screen).toMatch(/^\d{1,3}(,\d{3})* coins\nEXIT=0/m);
  });
});

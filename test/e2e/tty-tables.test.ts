/**
 * Tables as people see them in a real terminal (issue 14): tmux at 80 and 120 columns, colours on. `services`, `list`
 * and `show` must fit: no row wrapped onto a second screen line, no word broken. Skipped without tmux.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startWorld, type E2EWorld } from './harness.js';
import { textWidth } from '../../src/output/fit.js';

const hasTmux = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;
const socket = `taskctl-tables-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });

let world: E2EWorld;
let domainTask = 0;
let emailTask = 0;

async function createTask(service: string, items: string[]): Promise<number> {
  const response = await fetch(`${world.sandbox.url}/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': world.sandbox.apiKey },
    body: JSON.stringify({ service, items }),
  });
  return ((await response.json()) as { data: { id: number } }).data.id;
}

beforeAll(async () => {
  world = await startWorld({ itemMs: 0 });
  domainTask = await createTask('domain_check_availability', ['example.com', 'fail-bad.com', 'an-example.org']);
  emailTask = await createTask('email_verify', ['someone@example.com']);
  for (const service of ['domain_whois_history', 'fanpage_extract_contact']) await createTask(service, ['x.com']);
});

afterAll(async () => {
  if (hasTmux) spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
  await world.close();
});

let sessions = 0;

/** Runs taskctl in a `width`-column terminal with colour; resolves with the screen once it has exited. */
async function screenOf(width: number, args: string[]): Promise<{ screen: string; joined: string; coloured: string }> {
  const name = `t${++sessions}`;
  const vars = Object.entries({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    ...world.env,
  })
    .map(([key, value]) => `${key}='${value}'`)
    .join(' ');
  const command = `env -i ${vars} '${process.execPath}' '${BIN}' ${args.join(' ')}; echo EXIT=$?; sleep 60`;
  tmux('new-session', '-d', '-s', name, '-x', String(width), '-y', '60', command);
  const capture = (...flags: string[]) => tmux('capture-pane', '-p', ...flags, '-t', name);
  for (const started = Date.now(); Date.now() - started < 15_000;) {
    const screen = capture();
    if (/EXIT=\d+/.test(screen)) {
      // -J joins lines the terminal wrapped: a fitted table reads the same either way.
      return { screen, joined: capture('-J'), coloured: capture('-e') };
    }
    await new Promise((resolve) => setTimeout(resolve, 80));
  }
  throw new Error(`taskctl ${args.join(' ')} did not finish:\n${capture()}`);
}

function expectFits(result: { screen: string; joined: string }, width: number) {
  expect(result.screen).toMatch(/EXIT=0/);
  const lines = result.screen.trimEnd().split('\n');
  expect(result.joined.trimEnd().split('\n')).toEqual(lines);
  for (const line of lines) expect(textWidth(line)).toBeLessThan(width);
}

describe.skipIf(!hasTmux)('tables in a terminal', () => {
  for (const width of [80, 120]) {
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
      // The items of a task with a failed item are red, never green.
      expect(result.coloured).toContain('\x1b[31m2/3, 1 failed');
    });

    it(`show of two tasks fits ${width} columns`, async () => {
      const result = await screenOf(width, ['show', String(domainTask), String(emailTask)]);
      expectFits(result, width);
      expect(result.screen).toMatch(/^Items: +3 \(2 completed, 1 failed\)$/m);
      expect(result.screen).toMatch(/^TARGET +STATUS +AVAILABLE +ERROR$/m);
      expect(result.screen).toMatch(/^TARGET +STATUS +DELIVERABLE/m);
    });
  }

  it('balance is one line', async () => {
    const result = await screenOf(80, ['balance']);
    expect(result.screen).toMatch(/^\d{1,3}(,\d{3})* coins\nEXIT=0/m);
  });
});

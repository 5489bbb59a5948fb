/**
 * A command file declares flags and calls a run function of the layer below. Read as text: its only
 * functions are `register*`, and it never names the run's context (src/context.ts), which only run functions take.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const dir = new URL('../../../src/commands/', import.meta.url);
// The shared helpers of the folder (src/README.md) and the file that registers every command.
const HELPERS = new Set(['help-text.ts', 'parsers.ts', 'shared-flags.ts', 'index.ts']);
const commands = readdirSync(dir).filter((name) => name.endsWith('.ts') && !HELPERS.has(name));

it('finds the command files', () => {
  expect(commands).toEqual(expect.arrayContaining(['api.ts', 'watch.ts', 'webhook.ts', 'list.ts', 'balance.ts']));
});

it.each(commands)('%s declares only register functions and takes no context', (name) => {
  const text = readFileSync(new URL(name, dir), 'utf8');
  const functions = [...text.matchAll(/^(?:export )?(?:async )?function\*? ?(\w+)/gm)].map((m) => m[1]);
  expect(functions.filter((fn) => !fn?.startsWith('register'))).toEqual([]);
  expect(text).not.toMatch(/from '\.\.\/context\.js'/);
});

import { describe, expect, it } from 'vitest';
import { cachedHelp, helpCommandPath, type HelpTexts } from '../../../src/boot/help.js';
import { commandPaths, renderHelpTexts } from '../../../src/boot/render-help.js';
import { FakeClock } from '../../clock.js';
import { main } from '../../../src/main.js';
import { createMemoryIO } from '../../../src/output/memory-io.js';
import { buildProgram } from '../../../src/program.js';

const texts: HelpTexts = {
  width: 80,
  commands: {
    '': { text: 'program help\n', wide: true },
    create: { text: 'create help\n', wide: false },
    'config set': { text: 'config set help\n', wide: true },
  },
};

describe('helpCommandPath', () => {
  it.each([
    [['--help'], ''],
    [['-h'], ''],
    [['help'], ''],
    [['create', '--help'], 'create'],
    [['config', 'set', '-h'], 'config set'],
    [['help', 'config', 'set'], 'config set'],
    [['--profile', 'x', '--help'], '--profile x'],
  ])('%j → %j', (args, path) => {
    expect(helpCommandPath(args)).toBe(path);
  });

  it.each([[[]], [['balance']], [['create', '--help', 'x']], [['--version']]])('%j is not a help request', (args) => {
    expect(helpCommandPath(args)).toBeUndefined();
  });
});

describe('cachedHelp', () => {
  const pipe = { isTTY: false };
  it('answers known command paths when stdout is not a terminal', () => {
    expect(cachedHelp(texts, ['--help'], pipe)).toBe('program help\n');
    expect(cachedHelp(texts, ['help', 'config', 'set'], pipe)).toBe('config set help\n');
  });

  it('leaves anything else to commander: other flags, unknown commands, prototype keys', () => {
    expect(cachedHelp(texts, ['--profile', 'x', '--help'], pipe)).toBeUndefined();
    expect(cachedHelp(texts, ['nope', '--help'], pipe)).toBeUndefined();
    expect(cachedHelp(texts, ['constructor', '--help'], pipe)).toBeUndefined();
    expect(cachedHelp(texts, ['balance'], pipe)).toBeUndefined();
  });

  it('serves a terminal of the rendered width, a wider one only for texts that do not wrap, never a narrower one', () => {
    expect(cachedHelp(texts, ['create', '--help'], { isTTY: true, columns: 80 })).toBe('create help\n');
    expect(cachedHelp(texts, ['create', '--help'], { isTTY: true, columns: 120 })).toBeUndefined();
    expect(cachedHelp(texts, ['--help'], { isTTY: true, columns: 120 })).toBe('program help\n');
    expect(cachedHelp(texts, ['--help'], { isTTY: true, columns: 60 })).toBeUndefined();
    // A terminal of unknown width: commander uses 80 too.
    expect(cachedHelp(texts, ['create', '--help'], { isTTY: true })).toBe('create help\n');
  });
});

describe('dist/help.json, as the build renders it', () => {
  it('holds every command, and each text is exactly what commander prints when stdout is not a terminal', async () => {
    const texts = await renderHelpTexts(main);
    const paths = [...commandPaths(buildProgram(createMemoryIO().io, () => Promise.resolve()))];
    expect(paths.length).toBeGreaterThan(20);
    expect(Object.keys(texts.commands).sort()).toEqual(paths.map((path) => path.join(' ')).sort());
    for (const path of paths) {
      const memory = createMemoryIO();
      const code = await main([...path, '--help'], {
        io: memory.io,
        env: {},
        clock: new FakeClock(),
        signal: new AbortController().signal,
      });
      expect({ path, code, text: cachedHelp(texts, [...path, '--help'], { isTTY: false }) }).toEqual({
        path,
        code: 0,
        text: memory.stdout.text(),
      });
    }
  });

  it('serves a wider terminal only what commander prints there (the wrapped notes and global options included)', async () => {
    const texts = await renderHelpTexts(main);
    for (const path of Object.keys(texts.commands)) {
      const args = path === '' ? [] : path.split(' ');
      for (const columns of [81, 100, 120, 200]) {
        const served = cachedHelp(texts, [...args, '--help'], { isTTY: true, columns });
        if (served === undefined) continue;
        const memory = createMemoryIO({ stdoutTTY: true, columns });
        await main([...args, '--help'], {
          io: memory.io,
          env: {},
          clock: new FakeClock(),
          signal: new AbortController().signal,
        });
        expect({ path, columns, text: served }).toEqual({ path, columns, text: memory.stdout.text() });
      }
    }
  });
});

/**
 * Run functions take small capabilities (core/capabilities.ts), not the whole context: one is driven here with a hand-made
 * object of only what it declares, and every capability stays small.
 */
import { readFileSync } from 'node:fs';
import ts from '../../typescript.js';
import { describe, expect, it } from 'vitest';
import { T0 } from '../../clock.js';
import type { ApiClient } from '../../../src/api/client.js';
import { runBalance } from '../../../src/core/balance.js';
import { runConfigPath } from '../../../src/core/config.js';
import type { Output, Prompts, Runtime, Service } from '../../../src/core/capabilities.js';
import { prepareItems } from '../../../src/core/submit/prepare-items.js';
import { createMemoryIO } from '../../../src/output/memory-io.js';
import { createPrinter } from '../../../src/output/printer.js';

/** `members`, and a test failure for any other member read (a capability the function did not declare). */
function only<T extends object>(members: T): T {
  return new Proxy(members, {
    get(target, key) {
      if (typeof key === 'string' && !(key in target)) throw new Error(`read ctx.${key}, which it did not declare`);
      return Reflect.get(target, key) as unknown;
    },
  });
}

const unused = () => {
  throw new Error('not used by this run function');
};

function output(format: 'table' | 'json', stdin?: string): { ctx: Output; stdout: () => string; stderr: () => string } {
  const memory = createMemoryIO(stdin === undefined ? {} : { stdin });
  const printer = createPrinter({ io: memory.io, format, color: false });
  const ctx: Output = { io: memory.io, printer, redact: (text) => text, addSecret: unused, paged: unused };
  return { ctx, stdout: () => memory.stdout.text(), stderr: () => memory.stderr.text() };
}

describe('a run function driven with only the capabilities it declares', () => {
  it('balance: Output & Prompts & Service, with a hand-made client and no spinner', async () => {
    const { ctx: out, stdout } = output('table');
    const api = { getBalance: () => Promise.resolve({ balance: 1234, currency: 'coins' }) } as unknown as ApiClient;
    const prompts: Prompts = { interactive: false, spin: (_text, work) => work(() => {}, false), spinInto: unused };
    const service: Service = {
      globals: { color: false, input: false },
      ci: false,
      ephemeralSandbox: false,
      settings: unused,
      apiSettings: unused,
      api: () => Promise.resolve(api),
    };
    await runBalance(only({ ...out, ...prompts, ...service }));
    expect(stdout()).toBe('1,234 coins\n');
  });

  it('config path: Output & Runtime, no config file, no settings, no client', async () => {
    const { ctx: out, stdout } = output('table');
    const runtime: Runtime = {
      clock: { now: () => T0, sleep: unused },
      env: { TASKCTL_CONFIG_DIR: '/cfg' },
      random: () => 0.5,
    };
    await runConfigPath(only({ ...out, ...runtime }));
    expect(stdout()).toBe('/cfg/config.json\n');
  });

  it("create's first step: items from stdin with only io, printer, the global flags and the signal that stops the read (no client, no clock)", async () => {
    const { ctx: out, stdout, stderr } = output('table', 'a.example\nb.example\na.example\n');
    const signal = new AbortController().signal;
    const ctx = only({ io: out.io, printer: out.printer, globals: { color: false, input: false }, signal });
    const prepared = await prepareItems(ctx, 'dns', [], { validate: false });
    try {
      expect([prepared.count, prepared.duplicates]).toEqual([2, 1]);
      expect([...prepared.chunks(10)]).toEqual([['a.example', 'b.example']]);
    } finally {
      prepared.dispose();
    }
    expect(stderr()).toMatch(/removed 1 duplicate item/);
    expect(stdout()).toBe('');
  });
});

describe('capability sizes', () => {
  it('Capabilities is the intersection of interfaces of at most 9 members each', () => {
    const path = new URL('../../../src/core/capabilities.ts', import.meta.url);
    const source = ts.createSourceFile('capabilities.ts', readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const interfaces = new Map<string, number>();
    let parts: string[] = [];
    source.forEachChild((node) => {
      if (ts.isInterfaceDeclaration(node)) interfaces.set(node.name.text, node.members.length);
      if (ts.isTypeAliasDeclaration(node) && node.name.text === 'Capabilities' && ts.isIntersectionTypeNode(node.type))
        parts = node.type.types.map((part) => part.getText(source));
    });
    expect(parts).toEqual(['Output', 'Prompts', 'Process', 'Runtime', 'Store', 'Service']);
    for (const part of parts) {
      expect(interfaces.get(part), part).toBeGreaterThan(0);
      expect(interfaces.get(part), part).toBeLessThanOrEqual(9);
    }
  });
});

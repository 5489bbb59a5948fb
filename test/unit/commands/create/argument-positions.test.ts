/**
 * An item given as an argument is named `argument N`, as typed, never by the job's private copy of the arguments
 * (`ID.jsonl.args` in the state directory, a file the user never made and that is gone when the command ends).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxWorld, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
let world: World;
beforeEach(async () => {
  world = await startSandboxWorld();
});
afterEach(() => world.close());

describe('create: items given as arguments', () => {
  it('an invalid one is exit 3 naming its argument', async () => {
    const result = await world.run(['create', S, 'a.com', 'http://b.com/x', '-y']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('argument 2: "http://b.com/x": a URL, not a domain');
    expect(result.stderr).not.toContain('.args');
    expect(await world.posts()).toBe(0);
  });

  it('one skipped with --skip-invalid is named by its argument', async () => {
    const result = await world.run(['create', S, 'a.com', 'http://b.com/x', 'c.com', '--skip-invalid', '-y']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('argument 2: "http://b.com/x"');
    expect(result.stderr).not.toContain('.args');
  });

  it('a control character inside one names its argument', async () => {
    const result = await world.run(['create', S, 'a.com', 'b\u0007.com', '-y']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('argument 2: control character');
    expect(result.stderr).not.toContain('.args');
  });

  it('one over the line cap names its argument', async () => {
    const result = await world.run(['create', S, 'a.com', `${'a'.repeat(70_000)}.com`, '-y']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('argument 2: ');
    expect(result.stderr).not.toContain('.args');
  });
});

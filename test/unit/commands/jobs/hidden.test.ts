/** `jobs` counts the jobs it does not show, naming only what hides them: --limit, or the account (--all). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSandboxWorld, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
let here: World;
let there: World;
let home: string;
beforeEach(async () => {
  [here, there] = await Promise.all([startSandboxWorld(), startSandboxWorld()]);
  home = mkdtempSync(join(tmpdir(), 'taskctl-jobs-hidden-'));
});
afterEach(async () => {
  await Promise.all([here.close(), there.close()]);
  rmSync(home, { recursive: true, force: true });
});

const summary = (stderr: string) => /^\d+ jobs? on this machine.*$/m.exec(stderr)?.[0] ?? stderr;

it('hidden by --limit alone: says so, never --all', async () => {
  for (const item of ['a.com', 'b.com', 'c.com'])
    expect((await here.run(['create', S, item, '-q'], { home })).code).toBe(0);
  const listed = await here.run(['jobs', '--limit', '1'], { home });
  expect(listed.code, listed.stderr).toBe(0);
  expect(summary(listed.stderr)).toMatch(/^3 jobs on this machine \(2 not shown: past --limit 1\);/);
});

it("hidden as another service's: --all lists them; with --limit too, each counted", async () => {
  for (const item of ['a.com', 'b.com']) expect((await here.run(['create', S, item, '-q'], { home })).code).toBe(0);
  expect((await there.run(['create', S, 'c.com', '-q'], { home })).code).toBe(0);
  const listed = await here.run(['jobs'], { home });
  expect(summary(listed.stderr)).toMatch(
    /^3 jobs on this machine \(1 not shown: of another account or service; --all lists it\);/,
  );
  const limited = await here.run(['jobs', '--limit', '1'], { home });
  expect(summary(limited.stderr)).toMatch(
    /^3 jobs on this machine \(2 not shown: 1 past --limit 1, 1 of another account or service; --all lists it\);/,
  );
  const all = await here.run(['jobs', '--all', '--limit', '1'], { home });
  expect(summary(all.stderr)).toMatch(/^3 jobs on this machine \(2 not shown: past --limit 1\);/);
});

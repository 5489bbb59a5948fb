/**
 * `taskctl diff` against real sandboxes: two started with different seeds give the same items different results, so
 * diff must name exactly the items whose results differ; a run against itself, two tasks of the same items in one
 * service, and a journal against its own export are the same (exit 0, nothing printed). Every command runs `main()`
 * in this process: the subject is what diff names, not the process (a spawned diff: scratch-cleanup.test.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../clock.js';
import { startWorld, type E2EWorld } from './spawn-cli.js';

const SERVICE = 'domain_check_availability';
/** Enough items that the two seeds agree on some and differ on others (the diff's size is the bench's, not this). */
const ITEMS = Array.from({ length: 40 }, (_, i) => `host${i}.example.com`);

let one: E2EWorld;
let two: E2EWorld;
/** Each sandbox's virtual clock, shared with the commands run against it: a wait's sleeps pass at once. */
const clocks = new Map<E2EWorld, FakeClock>();
beforeAll(async () => {
  const [clockOne, clockTwo] = [new FakeClock(Date.now()), new FakeClock(Date.now())];
  [one, two] = await Promise.all([
    startWorld({ itemMs: 0, seed: 'one', clock: clockOne }),
    startWorld({ itemMs: 0, seed: 'two', clock: clockTwo }),
  ]);
  clocks.set(one, clockOne).set(two, clockTwo);
  writeFileSync(join(one.home.dir, 'items.txt'), `${ITEMS.join('\n')}\n`);
  writeFileSync(join(two.home.dir, 'items.txt'), `${ITEMS.join('\n')}\n`);
});
afterAll(async () => {
  await Promise.all([one.close(), two.close()]);
});

/** Creates a task of ITEMS (or a chunked job with `extra` flags) and waits for it: the task ids. */
async function createDone(world: E2EWorld, extra: string[] = []): Promise<string[]> {
  const created = await world.inProcess([
    'create',
    SERVICE,
    '-f',
    join(world.home.dir, 'items.txt'),
    '-y',
    '-q',
    ...extra,
  ]);
  expect(created.code, created.stderr).toBe(0);
  const ids = created.stdout.trim().split('\n');
  const clock = clocks.get(world);
  const waited = await world.inProcess(['wait', ...ids, '-q'], clock ? { clock } : {});
  expect(waited.code, waited.stderr).toBe(0);
  return ids;
}

/** `show ARGS -o ndjson` written to a file of the world's home: its path. */
async function exportTo(world: E2EWorld, args: string[], name: string): Promise<string> {
  const shown = await world.inProcess(['show', ...args, '-o', 'ndjson']);
  expect(shown.code, shown.stderr).toBe(0);
  const path = join(world.home.dir, name);
  writeFileSync(path, shown.stdout);
  return path;
}

function results(path: string): Map<string, string> {
  const lines = readFileSync(path, 'utf8').trim().split('\n');
  return new Map(
    lines.map((line) => {
      const { target, status, available } = JSON.parse(line) as { target: string; status: string; available: unknown };
      return [target, JSON.stringify([status, available])];
    }),
  );
}

describe('taskctl diff against sandboxes', () => {
  // Two jobs, their waits and exports: a bound for a loaded machine.
  it(
    'two seeds: names exactly the items whose results changed (exit 15); a file against itself is 0, silent',
    { timeout: 60_000 },
    async () => {
      const [a] = await createDone(one);
      const [b] = await createDone(two);
      const before = await exportTo(one, [a ?? ''], 'before.ndjson');
      const after = await exportTo(two, [b ?? ''], 'after.ndjson');
      const was = results(before);
      const now = results(after);
      const expected = ITEMS.filter((item) => was.get(item) !== now.get(item)).sort();
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(ITEMS.length);

      const result = await one.inProcess(['diff', before, after, '-o', 'ndjson']);
      expect(result.code, result.stderr).toBe(15);
      const changes = result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { target: string; field: string; before: unknown; after: unknown });
      expect([...new Set(changes.map((change) => change.target))].sort()).toEqual(expected);
      for (const change of changes)
        expect(typeof change.after === 'boolean' || change.field !== 'available').toBe(true);

      expect(await one.inProcess(['diff', before, before])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    },
  );

  it('two tasks with the same items in one service are the same: exit 0', async () => {
    const [first] = await createDone(one);
    const [second] = await createDone(one);
    const result = await one.inProcess(['diff', first ?? '', second ?? '']);
    expect(result, result.stderr).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('a journal against its own export is the same: exit 0', async () => {
    const journal = join(one.home.dir, 'job.journal');
    const ids = await createDone(one, ['--chunk-size', '15', '--journal', journal]);
    expect(ids).toHaveLength(3);
    const exported = await exportTo(one, ['--job', journal], 'job.ndjson');
    const result = await one.inProcess(['diff', journal, exported]);
    expect(result, result.stderr).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });
});

import { join } from 'node:path';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { journalLines, keepJournalLines } from '../journal-lines.js';
import { startSandboxWorld, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
beforeEach(async () => {
  world = await startSandboxWorld();
  dir = mkdtempSync(join(tmpdir(), 'rev-false-lost-'));
});
afterEach(async () => {
  await world.sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});
const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });

/** A 2-chunk job whose chunk 1 recorded its task's creation as `rewrite` makes of the time the service shows now. */
async function jobWithRecorded(rewrite: (at: string) => string): Promise<{ job: string; journal: string }> {
  const input = join(dir, 'in.txt');
  writeFileSync(input, 'a1.com\na2.com\n');
  const created = await run(['create', S, '-f', input, '--chunk-size', '1', '-y']);
  expect(created.code, created.stderr).toBe(0);
  const job = /job (j-[0-9a-z]+): taskctl jobs/.exec(created.stderr)?.[1] ?? '';
  const journal = join(dir, 'state', 'jobs', `${job}.jsonl`);
  const at = (JSON.parse((await run(['show', '1', '-o', 'json'])).stdout) as { created_at: string }).created_at;
  keepJournalLines(
    journal,
    () => true,
    (r) => (r.type === 'created' && r.chunk === 1 ? { ...r, created_at: rewrite(at) } : r),
  );
  return { job, journal };
}

it('created_at 1 s apart in whole seconds (rounded POST vs truncated GET) is the same task: nothing recorded lost', async () => {
  const { job, journal } = await jobWithRecorded((at) =>
    new Date(Math.floor(Date.parse(at) / 1000) * 1000 + 1000).toISOString().replace('.000Z', 'Z'),
  );
  const shown = await run(['show', '--job', job]);
  expect(shown.code, shown.stderr).toBe(0);
  const resumed = await run(['resume', job]);
  expect(resumed.stderr).not.toContain('lost');
  expect(journalLines(journal).map((r) => r.type)).not.toContain('lost');
  expect((await run(['jobs', '-o', 'json'])).stdout).toMatch(/"chunks_lost": ?0/);
});

it('created_at recorded without a zone is no proof of another task: nothing recorded lost', async () => {
  const { job, journal } = await jobWithRecorded((at) => at.replace(/(\.\d+)?Z$/, '').replace('T12', 'T09'));
  await run(['show', '--job', job]);
  const resumed = await run(['resume', job]);
  expect(resumed.stderr).not.toContain('lost');
  expect(journalLines(journal).map((r) => r.type)).not.toContain('lost');
});

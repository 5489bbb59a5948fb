/**
 * A damaged journal still tells what it knows: each line is read on its own, every readable record counts, a chunk
 * no record proves is in doubt (settled by the scan, never taken as never sent), and no message advises starting again
 * while tasks of the job exist. A BOM is read through; a file that is not a journal gets plain words.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { sandboxJob } from '../sandbox-job.js';

const ITEMS = ['a.com', 'b.com', 'c.com', 'd.com', 'e.com', 'f.com'];

function lines(journal: string): string[] {
  return readFileSync(journal, 'utf8').trim().split('\n');
}

/** Replaces the lines at these 1-based numbers with bytes that are not JSON. */
function damage(journal: string, ...at: number[]): void {
  const kept = lines(journal).map((line, i) => (at.includes(i + 1) ? '\u0000\u0000garbage' : line));
  writeFileSync(journal, kept.join('\n') + '\n');
}

const lineOf = (journal: string, type: string, chunk: number) =>
  lines(journal).findIndex((line) => line.includes(`"type":"${type}","chunk":${chunk},`)) + 1;

it("a lost `created` line: show --job uses the other records and names the damage; resume adopts the chunk's task", async () => {
  const { run, journal, ids } = await sandboxJob(ITEMS, 2);
  damage(journal, lineOf(journal, 'created', 2));
  const show = await run(['show', '--job', journal, '-o', 'ndjson']);
  expect(show.code, show.stderr).toBe(0);
  expect(show.stderr).toMatch(
    /the journal \S+ is damaged: line 5 cannot be read; the job is read from its other records/,
  );
  expect(show.stderr).toMatch(/1 chunk of 3 \(2\) has no task recorded yet/);
  expect(show.stderr).not.toMatch(/start a new|start again|delete/i);
  expect(show.stdout).toMatch(new RegExp(`"task":${ids[0]},`));

  const resumed = await run(['resume', journal]);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(`chunk 2: task ${ids[1]} was created by the interrupted request`);
  const after = await run(['list', '-o', 'json', '--per-page', '100']);
  expect((JSON.parse(after.stdout) as unknown[]).length).toBe(3);
  // Settled, the job is whole: the damage is still named, but no chunk is left for a resume to settle.
  const whole = await run(['show', '--job', journal, '-o', 'ndjson']);
  expect(whole.stderr).toMatch(/is damaged: line 5 cannot be read; its other records account for every chunk\n$/);
});

it('a lost `send` and `created`: the chunk is in doubt, never sent again on a guess; its task is named', async () => {
  const { run, journal, ids } = await sandboxJob(ITEMS, 2);
  damage(journal, lineOf(journal, 'send', 3), lineOf(journal, 'created', 3));
  const resumed = await run(['resume', journal]);
  // The task exists, but nothing recorded what existed before it was sent: named, not adopted, and nothing resent.
  expect(resumed.code, resumed.stderr).toBe(9);
  expect(resumed.stderr).toMatch(new RegExp(`chunk 3 .*may have been created: task ${ids[2]} matches`));
  expect(resumed.stderr).toContain(`--adopt 3=${ids[2]}`);
  expect(resumed.stderr).not.toMatch(/start a new|start again/i);
  const after = await run(['list', '-o', 'json', '--per-page', '100']);
  expect((JSON.parse(after.stdout) as unknown[]).length).toBe(3);
  const adopted = await run(['resume', journal, '--adopt', `3=${ids[2]}`, '-q']);
  expect(adopted.code, adopted.stderr).toBe(0);
});

it('a journal with a UTF-8 BOM is read normally', async () => {
  const { run, journal } = await sandboxJob(ITEMS, 2);
  writeFileSync(journal, `\uFEFF${readFileSync(journal, 'utf8')}`);
  const show = await run(['show', '--job', journal, '-o', 'ndjson']);
  expect(show.code, show.stderr).toBe(0);
  expect(show.stderr).toBe('');
  expect(show.stdout.trim().split('\n')).toHaveLength(6);
});

it('a file that is not a journal, or one whose job record is lost: plain words, the tasks named, no advice to delete', async () => {
  const { run, journal, dir, ids } = await sandboxJob(ITEMS, 2);
  const csv = join(dir, 'items.csv');
  writeFileSync(csv, 'domain\na.com\nb.com\n');
  for (const command of [
    ['show', '--job', csv],
    ['wait', '--job', csv],
  ]) {
    const result = await run(command);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/is not a taskctl journal/);
    expect(result.stderr).not.toMatch(/discriminator|invalid_union|delete/i);
  }
  const other = join(dir, 'other.jsonl');
  writeFileSync(other, '{"hello":"world"}\n');
  const notJob = await run(['show', '--job', other]);
  expect(notJob.stderr, notJob.stderr).toMatch(/is not a taskctl journal \(it does not start with a job record\)/);
  expect(notJob.stderr).not.toMatch(/discriminator/i);

  damage(journal, 1);
  const lost = await run(['show', '--job', journal]);
  expect(lost.code).toBe(2);
  expect(lost.stderr).toContain(`its job record (line 1) cannot be read`);
  expect(lost.stderr).toContain(`taskctl show ${ids.join(' ')}`);
  expect(lost.stderr).not.toMatch(/start a new|delete/i);
});

/**
 * `taskctl jobs` at a terminal's width: a table whose JOURNAL path does not fit drops that column whole (the id
 * continues the job as well), never cutting a path a person copies, and stays a table rather than one card per job
 * (at 80 columns too, without STARTED); where even the table does not fit (40 columns), the cards keep the path whole
 * on a line of its own.
 */
import { stripVTControlCharacters as plain } from 'node:util';
import { describe, expect, it } from 'vitest';
import { worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

let world: World;
let dir: string;
worldEachTest('taskctl-jobs-widths-', (w, d) => ((world = w), (dir = d)));

const jobs = (columns: number) =>
  runTaskctl(['jobs'], { env: world.env, clock: world.clock, home: dir, stdoutTTY: true, columns });

describe('taskctl jobs at a terminal', () => {
  // One job, listed at each width: the listing is the subject, not the create that makes the job.
  it('at 120 columns: a table without the JOURNAL column, said so; wide enough: the path whole; at 40 columns: cards, the JOURNAL path whole on a line of its own', async () => {
    const created = await runTaskctl(['create', 'domain_check_availability', 'a.com', '-y', '-q'], {
      env: world.env,
      clock: world.clock,
      home: dir,
    });
    expect(created.code, created.stderr).toBe(0);
    const id = /job (j-\w+)/.exec(created.stderr)?.[1] ?? '';
    expect(id).not.toBe('');

    const narrow = await jobs(120);
    expect(narrow.code, narrow.stderr).toBe(0);
    const [header, row] = plain(narrow.stdout).split('\n');
    expect(header).toMatch(/^ID\s+STARTED\s+SERVICE/);
    expect(header).not.toContain('JOURNAL');
    expect(row).toContain(id);
    expect(narrow.stdout).not.toContain('ID:');
    expect(narrow.stderr).toMatch(/hidden \([^)]*JOURNAL[^)]*\)/);
    for (const line of plain(narrow.stdout).split('\n')) expect(line.length).toBeLessThanOrEqual(120);
    // STARTED as an age for people, as list's CREATED; -o json keeps the timestamp.
    expect(row).toMatch(/ (just now|\d+[smhd] ago) /);

    // At 80 columns (a terminal's default): still a table, STARTED left out after BASE URL and JOURNAL, said so.
    const eighty = await jobs(80);
    const [header80, row80] = plain(eighty.stdout).split('\n');
    expect(header80).toMatch(/^ID\s+SERVICE\s+ITEMS\s+CHUNKS\s+IN DOUBT\s+STATE$/);
    expect(row80).toContain(id);
    expect(eighty.stdout).not.toContain('ID:');
    expect(eighty.stderr).toContain('3 columns hidden (STARTED, BASE URL, JOURNAL)');
    for (const line of plain(eighty.stdout).split('\n')) expect(line.length).toBeLessThanOrEqual(80);

    const wide = await jobs(400);
    expect(wide.stdout).toContain(`${id}.jsonl`);
    expect(wide.stdout).toMatch(/\/state\/jobs\/j-\w+\.jsonl/);

    // At 40 columns: cards, the JOURNAL path whole on a line of its own, never cut inside.
    const listed = await runTaskctl(['jobs', '-o', 'json'], { env: world.env, clock: world.clock, home: dir });
    const journal = (JSON.parse(listed.stdout) as Array<{ journal: string }>)[0]?.journal ?? '';
    expect(journal).toContain(`${id}.jsonl`);
    expect(journal.length).toBeGreaterThan(38);

    const cards = await jobs(40);
    expect(cards.code, cards.stderr).toBe(0);
    const lines = plain(cards.stdout).split('\n');
    expect(lines).toContain('JOURNAL:');
    expect(lines.map((line) => line.trim())).toContain(journal);
    expect(plain(cards.stdout)).toMatch(new RegExp(`^ID: +${id}$`, 'm'));
  });
});

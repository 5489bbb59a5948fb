/**
 * `webhook listen --spool FILE` killed around a rewrite (its mark appended to the file it replaces, then the rename),
 * then started again on the same name, on a name the stopped spool was moved to, or with a second name (a hard link).
 * A spool is refused as "an earlier copy" only when its events went on elsewhere: the file its mark names is there,
 * is another file, and starts with the spool's token, as the file the replace put there does. Never a hint to remove
 * the only file that holds acknowledged events.
 */
import { appendFileSync, existsSync, linkSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Spool } from '../../../src/webhook/spool.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'taskctl-spool-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const open = (file: string) =>
  Spool.open(
    file,
    () => 0,
    () => [],
  );
const spoolFile = () => join(dir, 'ev.spool');
const movedFile = () => join(dir, 'ev2.spool');
const job = { label: 'completed task 7', name: 'task.completed', taskId: '7', raw: '{"task":{"id":7}}' };

/** A stopped spool owing the command of event k7, as its listener leaves it; its token. */
async function stoppedSpool(): Promise<string> {
  const { spool } = await open(spoolFile());
  await spool.addJob(job, 'k7', 5);
  await spool.close();
  return tokenOf(spoolFile());
}

function tokenOf(file: string): string {
  const first = JSON.parse(readFileSync(file, 'utf8').split('\n')[0] ?? '') as { spool?: unknown };
  if (typeof first.spool !== 'string') throw new Error(`${file} does not start with a spool token`);
  return first.spool;
}

/** The mark a listener appends before its replace, left as the last line by a kill before the rename. */
function killedAfterMark(token: string): void {
  appendFileSync(spoolFile(), `${JSON.stringify({ to: spoolFile(), spool: token })}\n`);
}

/** Opens `file`, expects event k7 pending, and closes. */
async function opensOwingK7(file: string): Promise<void> {
  const { spool, pending } = await open(file);
  expect(pending.map((p) => p.key)).toEqual(['k7']);
  await spool.close();
}

const twoNames = (name: string) => ({
  exitCode: 2,
  message: expect.stringContaining(`the spool file ${name} has 2 names`),
});

describe('killed before the mark: the file is the spool, unmarked', () => {
  it('started again on the same name: its events run', async () => {
    await stoppedSpool();
    await opensOwingK7(spoolFile());
  });

  it('moved once stopped, then started on the new name: its events run', async () => {
    await stoppedSpool();
    renameSync(spoolFile(), movedFile());
    await opensOwingK7(movedFile());
  });

  it('given a second name (ln): exit 2 on either; once one is removed, the other runs its events', async () => {
    await stoppedSpool();
    linkSync(spoolFile(), movedFile());
    await expect(open(spoolFile())).rejects.toMatchObject(twoNames(spoolFile()));
    await expect(open(movedFile())).rejects.toMatchObject(twoNames(movedFile()));
    rmSync(spoolFile());
    await opensOwingK7(movedFile());
  });
});

describe('killed after the mark, before the rename: the file is the spool, its mark naming itself', () => {
  it('started again on the same name: its events run, and the rewrite keeps the token and drops the mark', async () => {
    const token = await stoppedSpool();
    killedAfterMark(token);
    await opensOwingK7(spoolFile());
    expect(tokenOf(spoolFile())).toBe(token);
    expect(readFileSync(spoolFile(), 'utf8')).not.toContain('"to"');
  });

  it('moved once stopped, then started on the new name: its events run, no refusal naming the gone path', async () => {
    const token = await stoppedSpool();
    killedAfterMark(token);
    renameSync(spoolFile(), movedFile());
    await opensOwingK7(movedFile());
    expect(existsSync(spoolFile())).toBe(false);
    // Moved back, it is the spool still (its mark went with the rewrite).
    renameSync(movedFile(), spoolFile());
    await opensOwingK7(spoolFile());
  });

  it('moved, and a new spool started at the old name: the moved one is still read (its mark names another spool)', async () => {
    const token = await stoppedSpool();
    killedAfterMark(token);
    renameSync(spoolFile(), movedFile());
    const fresh = await open(spoolFile());
    expect(fresh.pending).toEqual([]);
    await fresh.spool.close();
    expect(tokenOf(spoolFile())).not.toBe(token);
    await opensOwingK7(movedFile());
  });

  it('given a second name (ln): exit 2 on either; once one is removed, the other runs its events', async () => {
    const token = await stoppedSpool();
    killedAfterMark(token);
    linkSync(spoolFile(), movedFile());
    await expect(open(spoolFile())).rejects.toMatchObject(twoNames(spoolFile()));
    await expect(open(movedFile())).rejects.toMatchObject(twoNames(movedFile()));
    rmSync(spoolFile());
    await opensOwingK7(movedFile());
  });
});

describe('killed after the rename, the old file kept by a name given while the listener ran', () => {
  const other = () => join(dir, 'other.spool');
  /** A listener owing k7 whose file is linked, then replaced by its stop; a kill right after the rename leaves the same. */
  async function replacedUnderOtherName(): Promise<string> {
    const { spool } = await open(spoolFile());
    await spool.addJob(job, 'k7', 5);
    linkSync(spoolFile(), other());
    await spool.close();
    return tokenOf(spoolFile());
  }
  const refusal = (name: string) => ({
    exitCode: 2,
    message: `the spool file ${name} is an earlier copy of the spool ${spoolFile()}, which its listener replaced while ${name} named it too; nothing was read or run`,
    hint: `Its events went on in ${spoolFile()}: pass --spool ${spoolFile()}, and remove ${name}.`,
  });

  it('started again on the spool’s name: its events run, once', async () => {
    const token = await replacedUnderOtherName();
    expect(readFileSync(other(), 'utf8')).toContain(JSON.stringify({ to: spoolFile(), spool: token }));
    await opensOwingK7(spoolFile());
  });

  it('started on the other name, or on a name it was moved to: exit 2, and the file named holds the events', async () => {
    await replacedUnderOtherName();
    await expect(open(other())).rejects.toMatchObject(refusal(other()));
    renameSync(other(), movedFile());
    await expect(open(movedFile())).rejects.toMatchObject(refusal(movedFile()));
    await opensOwingK7(spoolFile());
  });

  it('the spool itself given a second name (ln) once stopped: exit 2 for its two names, the other name still refused', async () => {
    await replacedUnderOtherName();
    linkSync(spoolFile(), movedFile());
    await expect(open(spoolFile())).rejects.toMatchObject(twoNames(spoolFile()));
    await expect(open(other())).rejects.toMatchObject(refusal(other()));
  });

  it.each([
    ['moved', () => renameSync(spoolFile(), movedFile())],
    ['removed', () => rmSync(spoolFile())],
  ])(
    'the spool %s since: the other name is read (its events may run again), never refused, and said',
    async (_, gone) => {
      await replacedUnderOtherName();
      gone();
      // Nothing at the path named proves where the events went: refusing would point at nothing and remove the
      // file read; reading runs its events once more at worst (at least once), and the warning names that path.
      const logs: string[] = [];
      const { spool, pending } = await Spool.open(
        other(),
        () => 0,
        () => [],
        (line) => logs.push(line),
      );
      expect(pending.map((p) => p.key)).toEqual(['k7']);
      expect(logs).toEqual([
        `warning: the spool file ${other()} was replaced by its listener at ${spoolFile()}, which no longer holds that spool (moved or removed since): read as the spool, so its events may run a second time; if ${spoolFile()} was moved, stop and pass its new name to --spool, then remove ${other()}`,
      ]);
      await spool.close();
      // Its own rewrite dropped the mark: said once, at the first start on it.
      const again = await Spool.open(
        other(),
        () => 0,
        () => [],
        (line) => logs.push(line),
      );
      expect(logs).toHaveLength(1);
      await again.spool.close();
    },
  );
});

describe('a mark that proves nothing', () => {
  it('killed after the mark, then moved (a spool from before tokens, mark naming its old path): read, its events run', async () => {
    const event = { e: 1, k: 'k7', at: 5, l: 'completed task 7', n: 'task.completed', t: '7', r: '{}' };
    appendFileSync(spoolFile(), `${JSON.stringify(event)}\n${JSON.stringify({ to: spoolFile() })}\n`);
    renameSync(spoolFile(), movedFile());
    await opensOwingK7(movedFile());
    expect(existsSync(spoolFile())).toBe(false);
  });

  it('with no token, naming another spool: read as the spool', async () => {
    const token = await stoppedSpool();
    renameSync(spoolFile(), movedFile());
    appendFileSync(movedFile(), `${JSON.stringify({ to: spoolFile() })}\n`);
    const fresh = await open(spoolFile());
    await fresh.spool.close();
    await opensOwingK7(movedFile());
    expect(tokenOf(movedFile())).toBe(token);
  });
});

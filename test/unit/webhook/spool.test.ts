/**
 * `webhook listen --spool FILE`: the file's directory is made by the guarded walk (one that cannot be made is exit 2),
 * a journal is never taken for a spool, and one listener per spool, whatever name the file has or had.
 */
import {
  appendFileSync,
  existsSync,
  linkSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Spool, spoolLimits } from '../../../src/webhook/spool.js';
import { notRunningPid } from '../pids.js';
import { T0 } from '../../clock.js';
import { whileFailingFs, writesFailUnder } from '../store/failing-fs.js';

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

describe('the spool file’s directory', () => {
  it('is made when missing', async () => {
    const file = join(dir, 'a', 'b', 'events.spool');
    const { spool } = await open(file);
    await spool.close();
    expect(existsSync(file)).toBe(true);
  });

  it.each(['/proc/nope', 'dangling'])(
    'that cannot be made (%s): exit 2 at once, naming the component',
    { timeout: 2_000 },
    async (where) => {
      symlinkSync(join(dir, 'gone'), join(dir, 'dangling'));
      const file = where === 'dangling' ? join(dir, 'dangling', 'x', 'events.spool') : '/proc/nope/events.spool';
      // At once: no sleep on this path, so a spin (Node's recursive mkdir under /proc) is caught by the test's timeout.
      const error = await open(file).catch((e: unknown) => e);
      expect(error).toMatchObject({
        exitCode: 2,
        message: expect.stringContaining(
          `cannot make the directory of the spool file ${file}: ${where === 'dangling' ? join(dir, 'dangling') : '/proc/nope'} `,
        ),
        hint: 'Pass a --spool file in a writable directory.',
      });
    },
  );
});

describe('a spool file that cannot be written', () => {
  it.each([
    ['ENOSPC', 'the disk is full', 'Free space there, or pass a --spool file in another directory.'],
    ['EACCES', 'permission denied', 'Check the directory permissions, or pass a --spool file in another directory.'],
    [
      'EROFS',
      'the file system is read-only',
      'Its file system is read-only: pass a --spool file in another directory.',
    ],
  ])('(%s): exit 2, the advice chosen by the cause', async (code, words, hint) => {
    const file = join(dir, 'events.spool');
    const error = await whileFailingFs(writesFailUnder(dir, code), () => open(file)).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 2,
      message: `cannot lock the spool file ${file} (${file}.lock): ${words}`,
      hint,
    });
  });
});

describe('a spool file that is a job journal', () => {
  it.each([
    ['', ''],
    [' (after a UTF-8 BOM, as the journal reader reads one)', '\uFEFF'],
  ])('is exit 2 at once%s, and the journal stays as it was (the spool would replace it)', async (_, bom) => {
    const file = join(dir, 'k.jsonl');
    const journal = `${bom}{"type":"job","version":1,"id":"j-k"}\n{"type":"send","chunk":1}\n`;
    writeFileSync(file, journal);
    const error = await open(file).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 2,
      message: `the spool file ${file} is a taskctl journal (it starts with a job record)`,
    });
    expect(readFileSync(file, 'utf8')).toBe(journal);
  });
});

describe('one listener per spool: a lock held for its whole life', () => {
  const file = () => join(dir, 'events.spool');

  it('a second open of the same spool is exit 2 naming the holder; after the first closes it opens', async () => {
    const { spool } = await open(file());
    const error = await open(file()).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 2,
      message: expect.stringContaining(
        `the spool file ${file()} is in use by another listener (process ${process.pid} `,
      ),
      hint: expect.stringContaining('Stop that listener'),
    });
    await spool.close();
    const again = await open(file());
    await again.spool.close();
  });

  it('the spool keeps what the first listener wrote when a second one is refused', async () => {
    const { spool } = await open(file());
    await spool.addSeen('k1', 5);
    await open(file()).catch(() => undefined);
    expect(readFileSync(file(), 'utf8')).toContain('"s":"k1"');
    await spool.close();
  });

  it('another name of the same file (a hard link) is refused, exit 2', async () => {
    const { spool } = await open(file());
    const other = join(dir, 'other.spool');
    linkSync(file(), other);
    const error = await open(other).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 2,
      message: expect.stringContaining(`the spool file ${other} has 2 names`),
      // Not a copy (cp): that would be a second spool of the same events.
      hint: `Keep one name: remove ${other} and pass the other (find -samefile lists a file's names); a copy would run the same events again.`,
    });
    await spool.close();
  });

  it('a symbolic link to a spool in use is exit 2 naming the holder', async () => {
    const { spool } = await open(file());
    const link = join(dir, 'link.spool');
    symlinkSync(file(), link);
    const error = await open(link).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 2,
      message: expect.stringContaining(`is in use by another listener (process ${process.pid} `),
    });
    await spool.close();
  });

  it('a lock left by a killed listener (its pid gone) does not block the next start', async () => {
    writeFileSync(
      `${file()}.lock`,
      JSON.stringify({ pid: notRunningPid(), host: hostname(), at: T0, token: 'killed' }),
    );
    const { spool } = await open(file());
    await spool.close();
    expect(existsSync(`${file()}.lock`)).toBe(false);
  });
});

describe('a name the spool keeps after its listener replaced it (a hard link or a rename while it ran)', () => {
  const file = () => join(dir, 'events.spool');
  const other = () => join(dir, 'other.spool');
  const job = { label: 'completed task 7', name: 'task.completed', taskId: '7', raw: '{"task":{"id":7}}' };
  const compactAtBytes = spoolLimits.compactAtBytes;
  afterEach(() => {
    spoolLimits.compactAtBytes = compactAtBytes;
  });

  const refusal = (name: string) => ({
    exitCode: 2,
    message: `the spool file ${name} is an earlier copy of the spool ${file()}, which its listener replaced while ${name} named it too; nothing was read or run`,
    hint: `Its events went on in ${file()}: pass --spool ${file()}, and remove ${name}.`,
  });

  it('linked while the listener runs, then compacted under it: the other name is exit 2, nothing run twice', async () => {
    const { spool } = await open(file());
    await spool.addJob(job, 'k7', 5);
    linkSync(file(), other());
    // The next append passes the bound: the spool is rewritten (a new file at its name) while the listener runs.
    spoolLimits.compactAtBytes = 1;
    await spool.addSeen('k8', 6);
    const kept = readFileSync(other(), 'utf8');
    expect(kept).toContain('"k":"k7"'); // the event the listener still owes sits in the other name's file

    const error = await open(other()).catch((e: unknown) => e);
    expect(error).toMatchObject(refusal(other()));
    expect(readFileSync(other(), 'utf8')).toBe(kept);
    // The listener goes on in its own file: its events, before and after, are run by the next start on its name.
    spoolLimits.compactAtBytes = compactAtBytes;
    await spool.addJob(job, 'k9', 7);
    await spool.close();
    expect(readFileSync(other(), 'utf8')).toBe(kept);
    const next = await open(file());
    expect(next.pending.map((p) => p.key)).toEqual(['k7', 'k9']);
    await next.spool.close();
  });

  it.each([
    ['linked (ln)', linkSync],
    ['renamed (mv)', renameSync],
  ])('%s while the listener runs, then replaced by its clean stop: the other name is exit 2', async (_, rename) => {
    const { spool } = await open(file());
    await spool.addJob(job, 'k7', 5);
    rename(file(), other());
    await spool.close();
    await expect(open(other())).rejects.toMatchObject(refusal(other()));
    // The event the listener owed is in the file at its name, run once by the next start there.
    const next = await open(file());
    expect(next.pending.map((p) => p.key)).toEqual(['k7']);
    await next.spool.close();
  });

  it('linked as the listener opens a spool whose last line is torn: the torn line is cut, the mark read, exit 2', async () => {
    const event = JSON.stringify({ e: 1, k: 'k7', at: 5, l: 'x', r: '{}' });
    writeFileSync(file(), `${event}\n{"e":2,"k":"k8","a`); // killed mid-append
    let linked = false;
    // The first look at the clock after the read: the file has its name only, and the link is given then.
    const { spool } = await Spool.open(
      file(),
      () => {
        if (!linked) linkSync(file(), other());
        linked = true;
        return 0;
      },
      () => [],
    );
    const token = (JSON.parse(readFileSync(file(), 'utf8').split('\n')[0] ?? '') as { spool: string }).spool;
    // The mark names the spool's path and its token, the first line of the file put there.
    expect(readFileSync(other(), 'utf8')).toBe(`${event}\n${JSON.stringify({ to: file(), spool: token })}\n`);
    await expect(open(other())).rejects.toMatchObject(refusal(other()));
    await spool.close();
  });

  it('the mark of a listener killed before its replace names the very file it is in: read as the spool', async () => {
    writeFileSync(file(), `{"spool":"t1"}\n${JSON.stringify({ e: 1, k: 'k7', at: 5, l: 'x', r: '{}' })}\n`);
    appendFileSync(file(), `${JSON.stringify({ to: file(), spool: 't1' })}\n`);
    const { spool, pending } = await open(file());
    expect(pending.map((p) => p.key)).toEqual(['k7']);
    await spool.close();
    expect(readFileSync(file(), 'utf8')).not.toContain('"to"');
  });
});

/**
 * `webhook listen --spool FILE` whose file is moved away (mv), removed (rm) or replaced at its name while its listener
 * runs: met before the next line is written (the open file against the path, device and inode), never only at the
 * next rewrite. No acknowledged event is kept only in a file the user cannot find, and none runs twice when the words
 * are followed.
 */
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Spool } from '../../../src/webhook/spool.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'taskctl-spool-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const file = () => join(dir, 'ev.spool');
const moved = () => join(dir, 'ev2.spool');
const job = { label: 'completed task 7', name: 'task.completed', taskId: '7', raw: '{"task":{"id":7}}' };

const open = (path: string, logs: string[] = []) =>
  Spool.open(
    path,
    () => 0,
    () => [],
    (line) => logs.push(line),
  );

/** The keys of the events a spool file owes the command of (as a kill would leave it: no stop, no rewrite). */
function owed(path: string): string[] {
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { e?: number; k?: string; d?: number });
  const done = new Set(lines.flatMap((l) => (l.d === undefined ? [] : [l.d])));
  return [...new Set(lines.flatMap((l) => (l.e === undefined || done.has(l.e) ? [] : [l.k ?? ''])))];
}

function tokenOf(path: string): string {
  return (JSON.parse(readFileSync(path, 'utf8').split('\n')[0] ?? '') as { spool: string }).spool;
}

const earlierCopy = (name: string) => ({
  exitCode: 2,
  message: `the spool file ${name} is an earlier copy of the spool ${file()}, which its listener replaced while ${name} named it too; nothing was read or run`,
});

const writtenAgain = (owes: number) =>
  `warning: the spool file ${file()} was moved away or removed while listening: written again there with the ` +
  `${owes} event(s) it owes; a file it was moved to is an earlier copy now (remove it)`;

describe('moved away (mv) while its listener runs', () => {
  it('the next line is written at the spool’s name, with what it owes: a kill then loses nothing', async () => {
    const logs: string[] = [];
    const { spool } = await open(file(), logs);
    const token = tokenOf(file());
    await spool.addJob(job, 'k7', 5);
    renameSync(file(), moved());
    await spool.addJob({ ...job, label: 'completed task 9', taskId: '9' }, 'k9', 6);
    // No stop, no rewrite of its own: the file at the name the user gave holds both events.
    expect(owed(file())).toEqual(['k7', 'k9']);
    expect(tokenOf(file())).toBe(token);
    expect(logs).toEqual([writtenAgain(2)]);
    // The moved file is marked: started on it, a listener is refused, nothing run twice.
    await expect(open(moved())).rejects.toMatchObject(earlierCopy(moved()));
    await spool.addSeen('k10', 7);
    expect(logs).toHaveLength(1); // said once
    await spool.close();
    const next = await open(file());
    expect(next.pending.map((p) => p.key)).toEqual(['k7', 'k9']);
    await next.spool.close();
  });

  it('a copy put back at its name (it starts with the spool’s token) is written over with what the listener holds', async () => {
    const logs: string[] = [];
    const { spool } = await open(file(), logs);
    await spool.addJob(job, 'k7', 5);
    renameSync(file(), moved());
    copyFileSync(moved(), file());
    const copy = statSync(file()).ino;
    await spool.addSeen('k8', 6);
    expect(statSync(file()).ino).not.toBe(copy);
    expect(readFileSync(file(), 'utf8')).toContain('"s":"k8"');
    expect(owed(file())).toEqual(['k7']);
    expect(logs).toEqual([writtenAgain(1)]);
    await spool.close();
    await expect(open(moved())).rejects.toMatchObject(earlierCopy(moved()));
  });
});

describe('removed (rm) while its listener runs', () => {
  it('the next line is written at its name again, with what it owes', async () => {
    const logs: string[] = [];
    const { spool } = await open(file(), logs);
    await spool.addJob(job, 'k7', 5);
    rmSync(file());
    await spool.addSeen('k8', 6);
    expect(owed(file())).toEqual(['k7']);
    expect(readFileSync(file(), 'utf8')).toContain('"s":"k8"');
    expect(logs).toEqual([writtenAgain(1)]);
    await spool.close();
  });

  it('with no event since, its stop writes it again (the warning said then)', async () => {
    const logs: string[] = [];
    const { spool } = await open(file(), logs);
    await spool.addJob(job, 'k7', 5);
    rmSync(file());
    await spool.close();
    expect(logs).toEqual([writtenAgain(1)]);
    const next = await open(file());
    expect(next.pending.map((p) => p.key)).toEqual(['k7']);
    await next.spool.close();
  });
});

describe('another file put at its name while its listener runs', () => {
  const replaced = () =>
    `the spool file ${file()} was replaced by another file while listening; that file is left as it is`;

  it('is never written over: the line is refused (its event not acknowledged) until the name is free again', async () => {
    const { spool } = await open(file());
    await spool.addJob(job, 'k7', 5);
    renameSync(file(), moved());
    writeFileSync(file(), 'not mine\n');
    const error = await spool.addSeen('k8', 6).catch((e: unknown) => e);
    expect(error).toMatchObject({
      message: replaced(),
      hint: `Move ${file()} away: the listener then writes its spool there again (or stop it and pass another --spool).`,
    });
    await expect(spool.addJob(job, 'k9', 6)).rejects.toMatchObject({ message: replaced() });
    expect(readFileSync(file(), 'utf8')).toBe('not mine\n');
    // Moved away: the spool is written at its name again, with the event it still owes (k9 was never acknowledged).
    rmSync(file());
    await spool.addSeen('k8', 6);
    expect(owed(file())).toEqual(['k7']);
    await spool.close();
  });

  it('its stop leaves that file as it is; events still owed are named where they are', async () => {
    const { spool } = await open(file());
    await spool.addJob(job, 'k7', 5);
    renameSync(file(), moved());
    writeFileSync(file(), 'not mine\n');
    const error = await spool.close().catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 2,
      message: `${replaced()}; 1 event(s) whose command did not finish are in ${moved()}`,
      hint: `Pass --spool ${moved()} to run them.`,
    });
    expect(readFileSync(file(), 'utf8')).toBe('not mine\n');
    // That file is the spool: its events run there, once.
    const next = await open(moved());
    expect(next.pending.map((p) => p.key)).toEqual(['k7']);
    await next.spool.close();
  });

  it('with nothing owed, its stop leaves that file as it is, quietly', async () => {
    const { spool } = await open(file());
    await spool.addSeen('k7', 5);
    rmSync(file());
    writeFileSync(file(), 'not mine\n');
    await spool.close();
    expect(readFileSync(file(), 'utf8')).toBe('not mine\n');
  });
});

describe('moved, then taken by a listener on the new name before the next event', () => {
  it('the first writes nothing more, at neither name: its events went on with the other listener', async () => {
    const { spool } = await open(file());
    await spool.addJob(job, 'k7', 5);
    renameSync(file(), moved());
    const second = await open(moved());
    expect(second.pending.map((p) => p.key)).toEqual(['k7']);
    await expect(spool.addSeen('k8', 6)).rejects.toMatchObject({
      message: `the spool file ${file()} was moved to ${moved()} while listening, and another listener took it over there`,
      hint: `Stop this listener: its events went on with that one (--spool ${moved()}).`,
    });
    expect(existsSync(file())).toBe(false);
    await spool.close();
    expect(existsSync(file())).toBe(false);
    expect(owed(moved())).toEqual(['k7']);
    await second.spool.close();
  });
});

describe('a copy (cp) of a spool, started on while the spool is still at its path', () => {
  const copyOf = (name: string) =>
    `warning: the spool file ${name} is a copy of the spool ${file()} (it starts with the same token): read as a ` +
    `spool, so its events may run a second time; if ${file()} is that spool, stop, remove ${name} and pass --spool ${file()}`;

  it('made while its listener runs: read (it cannot be told from the spool itself), and said, naming the spool', async () => {
    const { spool } = await open(file());
    await spool.addJob(job, 'k7', 5);
    copyFileSync(file(), moved());
    const logs: string[] = [];
    const copy = await open(moved(), logs);
    expect(copy.pending.map((p) => p.key)).toEqual(['k7']);
    expect(logs).toEqual([copyOf(moved())]);
    await copy.spool.close();
    await spool.close();
  });

  it('made once it stopped: the same; a spool moved once stopped is read without a word', async () => {
    const { spool } = await open(file());
    await spool.addJob(job, 'k7', 5);
    await spool.close();
    copyFileSync(file(), moved());
    const logs: string[] = [];
    const copy = await open(moved(), logs);
    await copy.spool.close();
    expect(logs).toEqual([copyOf(moved())]);
    rmSync(moved());
    renameSync(file(), moved());
    const moving = await open(moved(), logs);
    expect(moving.pending.map((p) => p.key)).toEqual(['k7']);
    await moving.spool.close();
    expect(logs).toHaveLength(1);
  });
});

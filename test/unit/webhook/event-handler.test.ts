/** The one path of every event: what a failure on the way says, in words; when the spool marks an event seen. */
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventHandler } from '../../../src/webhook/event-handler.js';
import type { Spool } from '../../../src/webhook/spool.js';
import { T0 } from '../../clock.js';

/** As node:fs fails: Node's own text names the errno, which people never see. */
const diskFull = () =>
  Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });

function handler(written: () => Promise<void>, logs: string[] = []) {
  return new EventHandler({
    apiKey: 'sk_unused',
    forwardTo: undefined,
    forwardTimeoutMs: undefined,
    exec: undefined,
    execConcurrency: 1,
    queue: 10,
    dedupe: true,
    canPrint: () => true,
    onEvent: () => false,
    written,
    log: (line) => logs.push(line),
    now: () => T0,
    env: {},
  });
}

const raw = '{"event":"task.completed","task":{"id":5}}';
const meta = { event: undefined, problem: undefined, name: 'task.completed', taskId: '5', synthesised: false };

describe('EventHandler', () => {
  it('an event printed to a reader that went away is 500, not acknowledged, and handled again when redelivered', async () => {
    let gone = true;
    const events = handler(() =>
      gone ? Promise.reject(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })) : Promise.resolve(),
    );
    expect(await events.handle(raw, meta, undefined)).toEqual({
      status: 500,
      note: 'task.completed task 5: not handled (the reader went away)',
    });
    expect(events.counts).toMatchObject({ acknowledged: 0, refused: 1 });
    gone = false;
    // Not marked seen: the redelivery is handled, not a duplicate.
    expect(await events.handle(raw, meta, undefined)).toMatchObject({ status: 200, note: 'task.completed task 5' });
    expect(events.counts).toMatchObject({ acknowledged: 1, duplicates: 0 });
  });

  it('an event the spool cannot keep (a full disk) is 500; the log names the file and what to do, once a spell', async () => {
    const logs: string[] = [];
    const events = handler(() => Promise.resolve(), logs);
    let full = true;
    events.spool = {
      path: 'full/ev.spool',
      addSeen: () => (full ? Promise.reject(diskFull()) : Promise.resolve()),
    } as unknown as Spool;
    const other = '{"event":"task.failed","task":{"id":6}}';
    const otherMeta = { ...meta, name: 'task.failed', taskId: '6' };
    const outcome = await events.handle(raw, meta, undefined);
    expect(outcome).toEqual({
      status: 500,
      note: 'task.completed task 5: not handled (cannot write the spool file full/ev.spool: the disk is full)',
    });
    await events.handle(other, otherMeta, undefined);
    await events.handle(raw, meta, undefined);
    const said =
      'error: cannot write the spool file full/ev.spool: the disk is full; answering 500 so the service delivers ' +
      'the events again. Free space there (or restart listen with --spool in another directory); until then each ' +
      'delivery of an event is printed again.';
    expect(logs).toEqual([said]);
    expect(events.counts.refused).toBe(3);
    full = false;
    expect(await events.handle(raw, meta, undefined)).toMatchObject({ status: 200 });
    expect(logs.at(-1)).toBe('spool: full/ev.spool is written again');
    full = true;
    await events.handle(other, otherMeta, undefined);
    expect(logs.filter((line) => line === said)).toHaveLength(2);
  });

  it('an event whose spool was replaced by another file while listening is 500, in the words of that cause', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taskctl-events-'));
    try {
      const logs: string[] = [];
      const events = handler(() => Promise.resolve(), logs);
      const file = join(dir, 'ev.spool');
      await events.openSpool(file);
      renameSync(file, join(dir, 'ev2.spool'));
      writeFileSync(file, 'not mine\n');
      expect(await events.handle(raw, meta, undefined)).toEqual({
        status: 500,
        note: `task.completed task 5: not handled (the spool file ${file} was replaced by another file while listening; that file is left as it is)`,
      });
      expect(logs).toEqual([
        `error: the spool file ${file} was replaced by another file while listening; that file is left as it is; ` +
          'answering 500 so the service delivers the events again. ' +
          `Move ${file} away: the listener then writes its spool there again (or stop it and pass another --spool); ` +
          'until then each delivery of an event is printed again.',
      ]);
      // Moved away: the spool is written at its name again, and the redelivery is handed on.
      rmSync(file);
      expect(await events.handle(raw, meta, undefined)).toMatchObject({ status: 200 });
      expect(logs.slice(1)).toEqual([
        `warning: the spool file ${file} was moved away or removed while listening: written again there with the ` +
          '0 event(s) it owes; a file it was moved to is an earlier copy now (remove it)',
        `spool: ${file} is written again`,
      ]);
      expect(readFileSync(file, 'utf8')).toContain('"s":"5:task.completed"');
      await events.spool?.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('EventHandler with a spool: the seen mark is written only once the event is handed on', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  const marks = (file: string) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.includes('5:task.completed'));

  it('a print that failed leaves no mark on disk, so the next run hands the redelivery on', async () => {
    dir = mkdtempSync(join(tmpdir(), 'taskctl-handler-'));
    const file = join(dir, 'events.spool');
    const events = handler(() => Promise.reject(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })));
    await events.openSpool(file);
    expect((await events.handle(raw, meta, undefined)).status).toBe(500);
    // As after a kill: the file as it is, not rewritten by a clean stop.
    expect(marks(file)).toEqual([]);
    // A killed listener's lock names a pid gone, which the next start takes over: here, its lock removed.
    rmSync(`${file}.lock`);
    const next = handler(() => Promise.resolve());
    await next.openSpool(file);
    expect(await next.handle(raw, meta, undefined)).toMatchObject({ status: 200, note: 'task.completed task 5' });
    expect(next.counts).toMatchObject({ acknowledged: 1, duplicates: 0 });
    await next.spool?.close();
    await events.spool?.close();
  });

  it('the mark follows the print: a kill before it (no 200 yet) leaves the event to be handed on again', async () => {
    dir = mkdtempSync(join(tmpdir(), 'taskctl-handler-'));
    const file = join(dir, 'events.spool');
    const atPrint: string[][] = [];
    const events = handler(() => {
      atPrint.push(marks(file));
      return Promise.resolve();
    });
    await events.openSpool(file);
    expect((await events.handle(raw, meta, undefined)).status).toBe(200);
    expect(atPrint).toEqual([[]]);
    // On disk before the 200: a kill after it, and the redelivery is a duplicate.
    expect(marks(file)).toHaveLength(1);
    await events.spool?.close();
  });
});

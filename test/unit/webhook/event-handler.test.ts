/** The one path of every event: what a failure on the way says, in words. */
import { describe, expect, it } from 'vitest';
import { EventHandler } from '../../../src/webhook/event-handler.js';
import type { Spool } from '../../../src/webhook/spool.js';

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
    now: () => 1_000,
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

  it('an event the spool cannot keep (a full disk) is 500, and the log and the answer say so in words', async () => {
    const logs: string[] = [];
    const events = handler(() => Promise.resolve(), logs);
    events.spool = { addSeen: () => Promise.reject(diskFull()) } as unknown as Spool;
    const outcome = await events.handle(raw, meta, undefined);
    expect(outcome).toEqual({ status: 500, note: 'task.completed task 5: not handled (the disk is full)' });
    expect(logs).toEqual(['error: the disk is full']);
    expect(events.counts.refused).toBe(1);
  });
});

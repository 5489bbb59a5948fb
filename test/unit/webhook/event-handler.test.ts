/** The one path of every event: what a failure on the way says, in words. */
import { describe, expect, it } from 'vitest';
import { EventHandler } from '../../../src/webhook/event-handler.js';
import type { Spool } from '../../../src/webhook/spool.js';

/** As node:fs fails: Node's own text names the errno, which people never see. */
const diskFull = () =>
  Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });

describe('EventHandler', () => {
  it('an event the spool cannot keep (a full disk) is 500, and the log and the answer say so in words', async () => {
    const logs: string[] = [];
    const handler = new EventHandler({
      apiKey: 'sk_unused',
      forwardTo: undefined,
      forwardTimeoutMs: undefined,
      exec: undefined,
      execConcurrency: 1,
      queue: 10,
      dedupe: true,
      canPrint: () => true,
      onEvent: () => false,
      log: (line) => logs.push(line),
      now: () => 1_000,
      env: {},
    });
    handler.spool = { addSeen: () => Promise.reject(diskFull()) } as unknown as Spool;
    const raw = '{"event":"task.completed","task":{"id":5}}';
    const meta = { event: undefined, problem: undefined, name: 'task.completed', taskId: '5', synthesised: false };
    const outcome = await handler.handle(raw, meta, undefined);
    expect(outcome).toEqual({ status: 500, note: 'task.completed task 5: not handled (the disk is full)' });
    expect(logs).toEqual(['error: the disk is full']);
    expect(handler.counts.refused).toBe(1);
  });
});

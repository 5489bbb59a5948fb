/**
 * What a stored one-item task costs the sandbox: the heap it keeps after a full GC. The process's RSS per task is the
 * bench's figure (`npm run bench -- --only sandbox`); this guards the representation behind it.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { SandboxState } from '../../src/sandbox/state.js';
import { T0 } from '../clock.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

it('keeps a one-item task in under 250 bytes of heap (one object, no array, no index entry)', () => {
  // Enough tasks that what the heap keeps besides them (a few hundred KB at most after a full GC) is ~10 bytes a task,
  // against the ~70 between a task's ~180 bytes and the bound; more only costs the creates and a larger heap to collect.
  const count = 20_000;
  const account = { balance: 1e12, apiKey: 'k', keyRotations: 0, nextId: 1, webhookUrl: null, tasks: [] };
  const state = new SandboxState(account, 'seed');
  const before = heapAfterGc();
  for (let i = 0; i < count; i++) {
    // Items as the API hands them over: parsed from a request body.
    const { items } = JSON.parse(`{"items":["task-${i}.example.com"]}`) as { items: string[] };
    state.createTask('domain_check_availability', 'domain', items, 1, T0 + i, 200);
  }
  const perTask = (heapAfterGc() - before) / count;
  expect(state.getTask(count)?.items).toEqual([`task-${count - 1}.example.com`]);
  expect(perTask).toBeLessThan(250);
});

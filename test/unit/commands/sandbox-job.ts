/** A finished journaled job on an in-process sandbox (items instant), for the `--job` tests of show, wait and retry. */
import { join } from 'node:path';
import { expect } from 'vitest';
import { SERVICE, tempDir } from '../core/job/fixture.js';
import { sandboxRun } from './run-in-process.js';

/** `items` in chunks of `chunkSize`, journaled in `dir`/job.jsonl; `targets(id)` reads a task's targets from the sandbox. */
export async function sandboxJob(items: string[], chunkSize: number) {
  const { run, sandbox } = await sandboxRun(0);
  const dir = tempDir();
  const journal = join(dir, 'job.jsonl');
  const created = await run([
    'create',
    SERVICE,
    ...items,
    '--chunk-size',
    String(chunkSize),
    '--journal',
    journal,
    '-y',
    '-q',
  ]);
  expect(created.code, created.stderr).toBe(0);
  const ids = created.stdout.trim().split('\n').map(Number);
  const targets = async (id: string) => {
    const response = await fetch(`${sandbox.url}/tasks/${id}`, { headers: { 'X-API-Key': sandbox.apiKey } });
    return ((await response.json()) as { data: { items: Array<{ target: string }> } }).data.items.map((i) => i.target);
  };
  return { run, sandbox, dir, journal, ids, targets };
}

/**
 * `-q` with an explicit `-o` or `--json`: the format wins, `-q` only quiets stderr (docs/behaviour.md#quiet), for the
 * waits too (`wait`, `wait --job`, `create --wait`, `retry --wait`); `-q` alone prints the ids (create, retry) or nothing.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxRun } from '../run-in-process.js';
import { postTask } from '../sandbox-world.js';

const SERVICE = 'domain_check_availability';
const formats: Array<[string, string[], RegExp]> = [
  ['-o json', ['-o', 'json'], /"status": "completed"/],
  ['--json', ['--json'], /"status": ?"completed"/],
  ['-o ndjson', ['-o', 'ndjson'], /"status":"completed"/],
  ['-o csv', ['-o', 'csv'], /^id,service,status/m],
  ['-o tsv', ['-o', 'tsv'], /\tcompleted\t/],
];

// The task a wait or a retry reads is made straight on the sandbox (done as it is made): the subject is their output.
type Case = (world: Awaited<ReturnType<typeof sandboxRun>>, extra: string[]) => Promise<{ stdout: string }>;
const commands: Array<[string, Case]> = [
  ['create --wait', ({ run }, extra) => run(['create', SERVICE, 'a.com', 'b.com', '-y', '--wait', '-q', ...extra])],
  [
    'wait',
    async ({ run, sandbox }, extra) => {
      const id = await postTask(sandbox, SERVICE, ['a.com']);
      return run(['wait', String(id), '-q', ...extra]);
    },
  ],
  [
    'wait --job',
    async ({ run }, extra) => {
      const journal = join(mkdtempSync(join(tmpdir(), 'taskctl-quiet-')), 'j.jsonl');
      await run(['create', SERVICE, 'a.com', '--journal', journal, '-y', '-q']);
      return run(['wait', '--job', journal, '-q', ...extra]);
    },
  ],
  [
    'retry --wait',
    async ({ run, sandbox }, extra) => {
      const id = await postTask(sandbox, SERVICE, ['fail-bad.com', 'a.com']);
      return run(['retry', String(id), '--allow-item-failures', '-y', '--wait', '-q', ...extra]);
    },
  ],
];

describe('-q with an explicit format: the format wins', () => {
  for (const [command, runIt] of commands) {
    it.each(formats)(`${command} -q %s prints the format on stdout`, async (_name, extra, expected) => {
      const result = await runIt(await sandboxRun(0), extra);
      expect(result.stdout).toMatch(expected);
    });
  }

  it('-q alone: create --wait prints the ids, wait nothing', async () => {
    const { run } = await sandboxRun(0);
    const created = await run(['create', SERVICE, 'a.com', 'b.com', '-y', '--wait', '-q']);
    expect(created.stdout).toMatch(/^\d+\n$/);
    const waited = await run(['wait', created.stdout.trim(), '-q']);
    expect(waited.stdout).toBe('');
  });
});

/**
 * After a one-off `--sandbox` run, no hint names a task id or a `taskctl show/wait/list` command: the sandbox
 * is gone when the command ends (and task 1 elsewhere is another server's). The hint says so and points at
 * `taskctl sandbox` for one that lasts.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTaskctl, sandboxRun } from '../commands/run-in-process.js';

const GONE =
  /this --sandbox service ends with this command; run `taskctl sandbox` in another terminal for one that lasts/i;
const NAMES_A_COMMAND = /taskctl (show|wait|list)\b/;

describe('--sandbox: hints never point at the sandbox that is gone', () => {
  it('create --wait with failed items (exit 11)', async () => {
    const result = await runTaskctl([
      '--sandbox',
      'create',
      'domain_check_availability',
      'a.com',
      'fail-b.com',
      '--wait',
      '--interval',
      '100ms',
      '-q',
    ]);
    expect(result.code).toBe(11);
    expect(result.stderr).toMatch(/task 1 completed with 1 failed item\b/);
    expect(result.stderr).toMatch(GONE);
    expect(result.stderr).not.toMatch(NAMES_A_COMMAND);
  });

  it('create --wait of a task that fails (exit 10)', async () => {
    const result = await runTaskctl([
      '--sandbox',
      'create',
      'domain_check_availability',
      'taskfail-a.com',
      '--wait',
      '--interval',
      '100ms',
      '-q',
    ]);
    expect(result.code).toBe(10);
    expect(result.stderr).toMatch(GONE);
    expect(result.stderr).not.toMatch(NAMES_A_COMMAND);
  });

  it('wait on a task the new sandbox does not have (exit 5)', async () => {
    const result = await runTaskctl(['--sandbox', 'wait', '7']);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(GONE);
    expect(result.stderr).not.toMatch(NAMES_A_COMMAND);
  });

  it('show and watch of a task the new sandbox does not have (exit 5): no `taskctl list` hint', async () => {
    for (const argv of [
      ['show', '1'],
      ['watch', '1'],
    ]) {
      const result = await runTaskctl(['--sandbox', ...argv]);
      expect(result.code).toBe(5);
      expect(result.stderr).toMatch(GONE);
      expect(result.stderr).not.toMatch(NAMES_A_COMMAND);
    }
  });

  it('a usage error keeps its syntax hint (it names no task of the sandbox)', async () => {
    const result = await runTaskctl(['--sandbox', 'show', 'abc']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Task ids are whole numbers/);
  });

  it('create --journal FILE: said not to be kept (a dry run too), and no file is made', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'taskctl-sandbox-journal-')), 'job.jsonl');
    const created = await runTaskctl(['--sandbox', 'create', 'domain_check_availability', 'a.com', '--journal', file]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain(`--journal ${file} is not kept: this --sandbox service ends with the run`);
    const dry = await runTaskctl([
      '--sandbox',
      'create',
      'domain_check_availability',
      'a.com',
      '--dry-run',
      '--journal',
      file,
    ]);
    expect(dry.stderr).toContain(`--journal ${file} is not kept: a dry run sends nothing`);
    expect(existsSync(file)).toBe(false);
  });

  it('wait --timeout: no resume command', async () => {
    const result = await runTaskctl([
      '--sandbox',
      'create',
      'domain_check_availability',
      'slow-a.com',
      '--wait',
      '--timeout',
      '1500ms',
      '-q',
    ]);
    expect(result.code).toBe(124);
    expect(result.stderr).toMatch(GONE);
    expect(result.stderr).not.toMatch(NAMES_A_COMMAND);
  });
});

describe('without --sandbox, the hints still name the commands', () => {
  it('the failed-items warning names taskctl show', async () => {
    const { run } = await sandboxRun(10);
    const result = await run([
      'create',
      'domain_check_availability',
      'a.com',
      'fail-b.com',
      'fail-c.com',
      '--wait',
      '--interval',
      '100ms',
      '-q',
    ]);
    expect(result.code).toBe(11);
    expect(result.stderr).toContain('task 1 completed with 2 failed items: taskctl show 1 --items-status failed');
  });
});

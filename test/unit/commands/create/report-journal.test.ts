/** `create --journal FILE --report junit=FILE`: the report would replace the run's own journal, so it is refused first. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../run-in-process.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'taskctl-create-report-journal-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('create --report junit=FILE where FILE is its --journal', () => {
  it('is exit 2 before any request, naming both flags, and no journal is made', async () => {
    const journal = join(dir, 'same.jsonl');
    const api = mockApi();
    const result = await runTaskctl(
      [
        'create',
        'domain_check_availability',
        'a.com',
        '-y',
        '--wait',
        '--journal',
        journal,
        '--report',
        `junit=${journal}`,
      ],
      { api },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: cannot write the report to ${journal}: it is this run's --journal`);
    expect(api.calls).toEqual([]);
    expect(existsSync(journal)).toBe(false);
  });

  it('the same file by another spelling (a relative path through ..) is refused too', async () => {
    const journal = join(dir, 'same.jsonl');
    const api = mockApi();
    const result = await runTaskctl(
      [
        'create',
        'domain_check_availability',
        'a.com',
        '-y',
        '--journal',
        journal,
        '--report',
        `junit=${join(dir, 'x', '..', 'same.jsonl')}`,
      ],
      { api },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("it is this run's --journal");
    expect(api.calls).toEqual([]);
  });
});

/**
 * The main job ends with its results. `wait` (and `create --wait`) on a terminal end with one task's item
 * table (paged when taller than the screen), or several tasks' summary and the `show` command; `--no-results` keeps
 * the task records; `--results` gives script formats the item records as `show` prints them.
 */
import { describe, expect, it } from 'vitest';
import { sandboxRun, type RunOptions } from '../run-in-process.js';
import { postTask } from '../sandbox-world.js';

async function setup() {
  const { run, sandbox } = await sandboxRun(100);
  // The tasks waited on, straight on the sandbox: the subject is the wait's end, not how they came.
  const create = (service: string, items: string[]): Promise<number> => postTask(sandbox, service, items);
  return { run, create };
}

const terminal: RunOptions = { stdoutTTY: true, stderrTTY: false, columns: 80, rows: 40 };

describe('the end of a wait on a terminal', () => {
  it('one task: its item results (target, status, the data, error), not just a count line', async () => {
    const { run, create } = await setup();
    const id = await create('domain_check_availability', ['example.com', 'fail-bad.com', 'an-example.org']);
    const result = await run(['wait', String(id)], terminal);
    expect(result.code).toBe(11);
    expect(result.stdout).toMatch(/^Status: +completed$/m);
    expect(result.stdout).toMatch(/^TARGET +STATUS +AVAILABLE +ERROR$/m);
    expect(result.stdout).toMatch(/^example\.com +completed +(true|false) +-$/m);
    expect(result.stdout).toMatch(/^fail-bad\.com +failed +- +\S/m);
  });

  it('create --wait ends the same way', async () => {
    const { run } = await setup();
    const result = await run(['create', 'domain_check_availability', 'a.com', 'b.com', '--wait', '-y'], terminal);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^a\.com +completed +(true|false)/m);
    expect(result.stdout).toMatch(/^b\.com +completed +(true|false)/m);
  });

  it('several tasks: one summary row each and the command that shows their items', async () => {
    const { run, create } = await setup();
    const one = await create('domain_check_availability', ['a.com']);
    const two = await create('domain_check_availability', ['b.com']);
    const result = await run(['wait', String(one), String(two)], terminal);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ID +SERVICE +STATUS +ITEMS/m);
    expect(result.stdout).not.toMatch(/TARGET/);
    expect(result.stderr).toContain(`See the items: taskctl show ${one} ${two}`);
  });

  it('--wide keeps every column of the tables at the end, whatever the width (40 columns stack them otherwise)', async () => {
    const { run, create } = await setup();
    const one = await create('domain_check_availability', ['a.com']);
    const two = await create('domain_check_availability', ['b.com']);
    const narrow = { ...terminal, columns: 40 };
    const stacked = await run(['wait', String(one), String(two)], narrow);
    expect(stacked.stdout).toMatch(/^SERVICE: +domain_check_availability$/m);
    const wide = await run(['wait', String(one), String(two), '--wide'], narrow);
    expect(wide.stdout).toMatch(/^ID +SERVICE +STATUS +ITEMS +COST +CREATED +FINISHED$/m);
    const items = await run(
      ['create', 'domain_check_availability', 'a.com', 'fail-x.com', '--wait', '-y', '--wide'],
      narrow,
    );
    expect(items.stdout).toMatch(/^TARGET +STATUS +AVAILABLE +ERROR$/m);
    // ... and the table of a create without --wait, which would leave columns out and name --wide.
    const created = await run(['create', 'domain_check_availability', 'c.com', '-y', '--wide'], narrow);
    expect(created.stdout).toMatch(/^ID +SERVICE +STATUS +ITEMS +COST +CREATED +FINISHED$/m);
  });

  it('--no-results: the task record only', async () => {
    const { run, create } = await setup();
    const id = await create('domain_check_availability', ['a.com']);
    const result = await run(['wait', String(id), '--no-results'], terminal);
    expect(result.stdout).toMatch(/^ID +SERVICE +STATUS +ITEMS/m);
    expect(result.stdout).not.toMatch(/TARGET/);
  });

  it('results taller than the screen go through the pager; shorter ones do not', async () => {
    const { run, create } = await setup();
    const id = await create('domain_check_availability', ['a.com', 'b.com', 'c.com', 'd.com', 'e.com']);
    const paged: string[] = [];
    const pager = (text: string) => {
      paged.push(text);
      return Promise.resolve(true);
    };
    const tall = await run(['wait', String(id)], { ...terminal, rows: 8, pager });
    expect(paged).toHaveLength(1);
    expect(paged[0]).toMatch(/^e\.com +completed/m);
    expect(tall.stdout).toBe('');
    const short = await run(['show', String(id)], { ...terminal, rows: 40, pager });
    expect(paged).toHaveLength(1);
    expect(short.stdout).toMatch(/^e\.com +completed/m);
  });
});

describe('the end of a wait in script formats', () => {
  it('keeps the task records; --results prints the item records as show does', async () => {
    const { run, create } = await setup();
    const id = await create('domain_check_availability', ['a.com', 'b.com']);
    const plain = await run(['wait', String(id), '-o', 'tsv']);
    expect(plain.stdout.trim().split('\n')).toHaveLength(1);
    expect(plain.stdout).toMatch(new RegExp(`^${id}\\tdomain_check_availability\\tcompleted\\t`));
    const items = await run(['wait', String(id), '-o', 'tsv', '--results']);
    const show = await run(['show', String(id), '-o', 'tsv']);
    expect(items.stdout).toBe(show.stdout);
    const json = await run(['wait', String(id), '-o', 'json', '--results']);
    expect(JSON.parse(json.stdout)).toMatchObject({ id, items: [{ target: 'a.com' }, { target: 'b.com' }] });
  });
});

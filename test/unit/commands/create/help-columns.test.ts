/** `create --help` names the tsv columns a create prints, every one of them in their order (it had left two out). */
import { expect, it } from 'vitest';
import { runTaskctl, sandboxRun } from '../run-in-process.js';

it('the columns --help lists are the fields of a created task’s tsv row', async () => {
  const help = await runTaskctl(['create', '--help']);
  const listed = /\(tsv: ([^)]+)\)/.exec(help.stdout.replace(/\n\s*/g, ' '))?.[1]?.split(', ');
  expect(listed).toBeDefined();
  const { run } = await sandboxRun(0);
  const created = await run(['create', 'domain_check_availability', 'a.com', '-o', 'tsv']);
  expect(created.code, created.stderr).toBe(0);
  expect(created.stdout.replace(/\n$/, '').split('\t')).toHaveLength(listed?.length ?? 0);
  const csv = await run(['create', 'domain_check_availability', 'b.com', '-o', 'csv']);
  expect(csv.stdout.split('\n')[0]).toBe(listed?.join(','));
});

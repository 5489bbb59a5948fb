/**
 * A `resume` whose key the service refuses (401: rotated, revoked) while it checks a chunk in doubt: exit 4 with the
 * key advice every command gives, at once (a refused key is not waited out), nothing sent, and the chunk left in doubt
 * exactly as it was, so the resume with the right key settles it. Never exit 9 "try again later", which can never
 * succeed with that key.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-key-refused-', (w, d) => ((world = w), (dir = d)));

const journal = () => join(dir, 'job.jsonl');
const run = (argv: string[], env: Record<string, string> = world.env) =>
  runTaskctl(argv, { env, clock: world.clock, home: dir });

/** A two-chunk job whose chunk 2 landed but was never recorded (killed as its answer came back): chunk 2 is in doubt. */
async function chunk2InDoubt(): Promise<void> {
  const created = await run(['create', S, 'a.com', 'b.com', '--chunk-size', '1', '--journal', journal(), '-q']);
  expect(created.code, created.stderr).toBe(0);
  const kept = readFileSync(journal(), 'utf8')
    .trim()
    .split('\n')
    .filter((line) => {
      const row = JSON.parse(line) as { type: string; chunk?: number };
      return !(row.type === 'created' && row.chunk === 2) && row.type !== 'done';
    });
  writeFileSync(journal(), kept.join('\n') + '\n');
}

it('the key refused while a chunk in doubt is checked: exit 4 at once, the key advice, then resume; nothing sent', async () => {
  await chunk2InDoubt();
  const before = readFileSync(journal(), 'utf8');
  const posts = await world.posts();
  const key = await world.rotateKey();
  const from = world.clock.sleeps.length;
  const refused = await run(['resume', journal()]);
  expect(refused.code, refused.stderr).toBe(4);
  expect(refused.stderr).toMatch(
    /error: chunk 2 \(domain_check_availability, 1 item, sent \S+\) is still in doubt: the task list cannot be read to find out whether it was created \(listing tasks: Invalid or missing API key\); nothing was sent\n/,
  );
  expect(refused.stderr).toMatch(
    /\nThe key from TASKCTL_API_KEY was refused: check or unset it \(.*\)\. Then continue it: taskctl resume j-\S+\n$/,
  );
  expect(refused.stderr).not.toContain('Try again later');
  expect(world.clock.sleeps.slice(from).reduce((sum, ms) => sum + ms, 0)).toBeLessThan(1000);
  expect(readFileSync(journal(), 'utf8')).toBe(before);
  expect(await world.posts()).toBe(posts);

  // With the key the service takes now: the chunk's task is found, nothing paid twice.
  const resumed = await run(['resume', journal()], { ...world.env, TASKCTL_API_KEY: key });
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toMatch(/chunk 2: task \d+ was created by the interrupted request/);
  expect(await world.tasks()).toHaveLength(2);
});

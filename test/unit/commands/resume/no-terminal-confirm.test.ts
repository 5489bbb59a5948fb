/**
 * `resume` above confirm-above with no terminal to ask on: refused (exit 2) in resume's own words, as its terminal
 * question says them (docs/commands.md#spending): nothing more was sent by this run, never "nothing was created" of a
 * job that has tasks; the next line is the resume with `--yes`, which then continues it.
 */
import { expect, it } from 'vitest';
import { stoppedByCtrlC, worldEachTest, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
const ITEMS = ['nt-a.com', 'nt-b.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-resume-no-terminal-', (w, d) => ((world = w), (dir = d)));

it('says nothing more was sent by this run, and `Continue it with: taskctl resume J --yes` continues it', async () => {
  const job = await stoppedByCtrlC(world, ['create', S, ...ITEMS, '--chunk-size', '1', '-q'], dir, 'reset-before');
  expect((await world.run(['config', 'set', 'confirm-above', '1'], { home: dir })).code).toBe(0);
  const posts = await world.posts();
  const refused = await world.run(['resume', job], { home: dir });
  expect(refused.code, refused.stderr).toBe(2);
  // After the first line, where the job stands: the refusal and its next step, the last two lines.
  const [message, hint] = refused.stderr.trimEnd().split('\n').slice(-2);
  expect(message).toMatch(
    /^error: the estimate is .*, and there is no terminal to confirm on; nothing more was sent by this run/,
  );
  expect(message).not.toContain('nothing was created');
  expect(hint).toBe(`Continue it with: taskctl resume ${job} --yes`);
  expect(await world.posts()).toBe(posts);
  const resumed = await world.run(hint?.replace('Continue it with: taskctl ', '').split(' ') ?? [], { home: dir });
  expect(resumed.code, resumed.stderr).toBe(0);
  const counts = await world.itemCounts();
  for (const item of ITEMS) expect(counts.get(item), item).toBe(1);
});

/**
 * A resume whose chunk in doubt turns out created. The balance before its first POST is held to what is really left,
 * not to the upper bound priced before the doubt was settled; and its check says it found the task while it goes on
 * watching the list to its horizon. A balance that covers the rest exactly is enough (it
 * was exit 6, "top up the balance", and the same command run again with no top-up went through).
 */
import { expect, it } from 'vitest';
import { stoppedInChunk2Check, worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
const ITEMS = ['a.com', 'b.com', 'c.com', 'd.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-resume-balance-', (w, d) => ((world = w), (dir = d)));

/** A job stopped by Ctrl-C while it checked the list for chunk 2 (its request reset); then that request lands. */
async function stoppedInDoubt(): Promise<string> {
  // Chunk 1 answered; chunk 2's request reset, the run stopped while it watched the list for a late landing; then the
  // request lands (its task made on the service, within the window the run was watching).
  const stopped = await stoppedInChunk2Check(world, (stop) =>
    runTaskctl(['create', S, ...ITEMS, '--chunk-size', '1', '-q'], { env: world.env, home: dir, ...stop }),
  );
  expect(stopped.code, stopped.stderr).toBe(130);
  const id = /taskctl resume (j-[0-9a-z]+)/.exec(stopped.stderr)?.[1] ?? '';
  expect(id).not.toBe('');
  await world.createTask(S, ['b.com']);
  expect(await world.taskCount()).toBe(2);
  return id;
}

it('chunk 2 found created: a balance of the two chunks left is enough, each item bought once', async () => {
  const id = await stoppedInDoubt();
  const price = await pricePerItem();
  await world.setBalance(2 * price);
  const resumed = await world.run(['resume', id, '--yes'], { home: dir });
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toMatch(/chunk 2: task \d+ was created by the interrupted request/);
  const counts = await world.itemCounts();
  expect([...counts.keys()].sort()).toEqual(ITEMS);
  expect([...counts.values()].every((n) => n === 1)).toBe(true);
});

async function pricePerItem(): Promise<number> {
  const answer = (await (
    await fetch(`${world.sandbox.url}/services`, { headers: { 'x-api-key': world.sandbox.apiKey } })
  ).json()) as { data: Array<{ service: string; pricing: number }> };
  const service = answer.data.find((s) => s.service === S);
  if (service === undefined) throw new Error(`no ${S} in ${JSON.stringify(answer)}`);
  return service.pricing;
}

it('its countdown, once the task is listed, names it: never "no task for it yet" after that', async () => {
  const id = await stoppedInDoubt();
  const resumed = await world.run(['resume', id, '--yes'], { home: dir });
  expect(resumed.code, resumed.stderr).toBe(0);
  const lines = resumed.stderr.split('\n');
  const named = lines.findIndex((line) =>
    /^task \d+ holds chunk 2's items; checking the task list until \S+ for another…$/.test(line),
  );
  expect(named, resumed.stderr).toBeGreaterThanOrEqual(0);
  expect(lines.slice(named).join('\n')).not.toMatch(/no task for it yet/);
});

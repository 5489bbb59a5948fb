/**
 * `taskctl resume` in a real terminal while it checks the task list for a chunk caught in flight: its first line
 * states the job, the check names the chunk, why and until when, and the screen never stands still for a second
 * (a spinner and a countdown) while it checks (how the check ends: test/e2e/journal-resume.test.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startWorld, type E2EWorld } from './spawn-cli.js';
import { hasTmux, openTerminal, type Terminal } from './tmux.js';
import { missing, skippedUnless } from '../skip-reason.js';

const S = 'domain_check_availability';
let world: E2EWorld | undefined;
let terminal: Terminal | undefined;
afterEach(async () => {
  await world?.close();
});
afterAll(() => terminal?.close());

describe.skipIf(!hasTmux)(skippedUnless('resume in a terminal', hasTmux, missing('tmux')), () => {
  it('shows the job, then a countdown that changes the screen at least every second while it checks', async () => {
    world = await startWorld({ itemMs: 0 });
    const input = join(world.home.dir, 'in.txt');
    writeFileSync(input, Array.from({ length: 9 }, (_, i) => `t${i}.example.com`).join('\n') + '\n');
    const journal = join(world.home.dir, 'job.jsonl');
    const created = await world.inProcess(['create', S, '-f', input, '--chunk-size', '3', '--journal', journal]);
    expect(created.code, created.stderr).toBe(0);
    // As a kill during chunk 2's request leaves it, sent 3 s ago, its request able to land for a while yet: the first
    // check counts from the resume's own start (about 10 s), however long the terminal takes to start it; the test
    // samples 3 s of it, then closes the terminal.
    const lines = readFileSync(journal, 'utf8').trim().split('\n');
    const cut = lines.findIndex((line) => line.includes('"type":"send"') && line.includes('"chunk":2'));
    const now = Date.now();
    const send = { ...(JSON.parse(lines[cut] ?? '{}') as object), sent_at: now - 3000, settle_after: now + 60_000 };
    writeFileSync(journal, [...lines.slice(0, cut), JSON.stringify(send)].join('\n') + '\n');

    terminal = openTerminal('resume');
    const running = terminal.start(120, ['resume', journal], { ...world.env });
    try {
      // Chunk 2's task is on the service: the countdown names it once listed, and watches on to its horizon.
      const first = await running.until(/checking the task list for chunk 2:|chunk 2's items; checking/);
      expect(first).toMatch(/job j-[0-9a-z]+: 1 of 3 chunks done, 1 in doubt \(chunk 2\); next: check the task list/);
      expect(first).toMatch(
        /checking the task list for chunk 2: it was being sent when the job stopped|task \d+ holds chunk 2's items; checking the task list for another/,
      );
      // Sampled four times a second for three seconds: no second passes without a change.
      const samples: string[] = [];
      for (let i = 0; i < 12; i++) {
        const screen = await running.screen();
        if (/was created by the interrupted request|EXIT=/.test(screen)) break; // the check is over
        samples.push(screen);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(samples.length).toBeGreaterThanOrEqual(8);
      for (let i = 4; i < samples.length; i++) {
        expect(new Set(samples.slice(i - 4, i + 1)).size, samples.slice(i - 4, i + 1).join('\n---\n')).toBeGreaterThan(
          1,
        );
      }
      expect(samples.join('\n')).toMatch(
        /\d+(\.\d)?s left: task \d+ holds chunk 2's items; checking the task list for another/,
      );
    } finally {
      await running.close();
    }
  }, 60_000);
});

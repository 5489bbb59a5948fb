/**
 * `create --journal` shows its progress as create does: on a terminal one live line redrawn in place (the live block
 * of output/progress.ts), gone at the end, which is the job's summary; piped or in CI, plain lines, as before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { mockApi, replyNoTasks, replyServices, runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';

async function journaled(options: {
  stderrTTY: boolean;
  env?: Record<string, string>;
  columns?: number;
  /** The first POST's answer spends the rate-limit window (reset in 30 s): the second chunk waits for it. */
  spendWindow?: boolean;
}) {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-journal-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const api = mockApi();
  replyServices(api);
  replyNoTasks(api);
  api.reply('GET', '/balance', 200, { success: true, data: { balance: 1000, currency: 'coins' } });
  const spent = { 'x-ratelimit-limit': '4', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' };
  for (const id of [11, 12, 13])
    api.reply(
      'POST',
      '/tasks',
      201,
      { success: true, data: task(id, { status: 'pending' }) },
      {
        headers: options.spendWindow === true && id === 11 ? spent : {},
      },
    );
  return runTaskctl(
    [
      'create',
      S,
      'a.com',
      'b.com',
      'c.com',
      '--chunk-size',
      '1',
      '--journal',
      join(dir, 'job.jsonl'),
      '-y',
      '-o',
      'tsv',
    ],
    // 120 columns: the summary names the journal by its path, which must fit whatever the temporary directory is.
    { api, stderrTTY: options.stderrTTY, columns: options.columns ?? 120, env: { NO_COLOR: '1', ...options.env } },
  );
}

describe('create --journal progress', () => {
  it('on a terminal: one line redrawn in place, ending with the summary', async () => {
    const result = await journaled({ stderrTTY: true });
    expect(result.code, result.stderr).toBe(0);
    expect(
      result.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('\t')[0]),
    ).toEqual(['11', '12', '13']);
    // Redrawn in place: the cursor goes back to the line's start (CSI 1G) and the old text is cleared (CSI 0K).
    expect(result.stderr).toMatch(/\x1b\[1G.*chunk 1 of 3: 1 of 3 tasks created/);
    expect(result.stderr).toMatch(/\x1b\[1G.*chunk 3 of 3: 3 of 3 tasks created/);
    // While a chunk is in flight the line names it, never the chunk before it, which is done.
    expect(result.stderr).toMatch(
      /\x1b\[1G.*creating chunk 2 of 3… \(1 of 3 tasks created; 1 item and 1 coin by this run\)/,
    );
    // No lasting line per chunk: what stays on the screen is the summary.
    const lasting = result.stderr
      .split(/\x1b\[1G/)
      .at(-1)
      ?.replace(/\x1b\[\d*[A-K]/g, '');
    // The job named one way on both lines: by its id, its file beside it in the summary.
    const id = /job (j-[0-9a-z]+): taskctl jobs/.exec(result.stderr)?.[1];
    expect(id).toBeDefined();
    expect(lasting).toMatch(new RegExp(`^✓? ?job ${id} \\(\\S*job\\.jsonl\\): 3 tasks for 3 items, 3 coins\n$`));
    // The job's id, on a line of its own with the first task, is the only other line.
    expect(result.stderr.split('\n')).toEqual([
      expect.stringMatching(/^\x1b\[1G⠋ creating chunk 1 of 3….*job j-[0-9a-z]+: taskctl jobs$/),
      expect.stringMatching(/✓ job j-[0-9a-z]+ \(\S*job\.jsonl\): 3 tasks/),
      '',
    ]);
  });

  it('on a narrow terminal: the line keeps the chunk and the tasks created, leaving out what does not fit', async () => {
    const result = await journaled({ stderrTTY: true, columns: 60 });
    expect(result.code, result.stderr).toBe(0);
    // Each frame of the live line as the screen shows it: after the cursor's return, up to the next control sequence.
    const frames = result.stderr
      .split(/\x1b\[1G/)
      .slice(1)
      .map((frame) => frame.split(/\x1b|\n/)[0] ?? '')
      .filter((frame) => frame.includes('chunk'));
    expect(frames).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^. creating chunk 2 of 3… \(1 of 3 tasks created\)$/),
        expect.stringMatching(/^. chunk 3 of 3: 3 of 3 tasks created$/),
      ]),
    );
    // Whole parts or none: no frame is cut at the terminal's edge (`…` only where a chunk is being created).
    for (const frame of frames) {
      expect(frame.length).toBeLessThan(60);
      expect(frame.replace(/of 3…/, '')).not.toContain('…');
    }
  });

  it('on a narrow terminal: a wait for the rate limit is said without its aside rather than cut in it', async () => {
    const result = await journaled({ stderrTTY: true, columns: 70, spendWindow: true });
    expect(result.code, result.stderr).toBe(0);
    // At 80 columns: `creating chunk 2 of 3: waiting 31s for the rate limit (4 requests a window)…`.
    expect(result.stderr).toMatch(/\x1b\[1G. creating chunk 2 of 3: waiting 31s for the rate limit…\x1b/);
    expect(result.stderr).not.toMatch(/\(4 requests/);
    // Narrower: the wait itself, in whole words; never `waiting 31s for the…`.
    const narrow = await journaled({ stderrTTY: true, columns: 50, spendWindow: true });
    expect(narrow.code, narrow.stderr).toBe(0);
    expect(narrow.stderr).toMatch(/\x1b\[1G. creating chunk 2 of 3: waiting 31s…\x1b/);
    expect(narrow.stderr).not.toMatch(/waiting 31s for the…/);
  });

  it('piped or in CI: plain lines, one per chunk at most a second, then the summary', async () => {
    for (const options of [{ stderrTTY: false }, { stderrTTY: true, env: { CI: 'true' } }]) {
      const result = await journaled(options);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toMatch(/\x1b/);
      // One item and one coin are said in the singular.
      expect(result.stderr).toMatch(/chunk 1 of 3: 1 of 3 tasks created; 1 item and 1 coin by this run\n/);
      expect(result.stderr).toMatch(/chunk 3 of 3: 3 of 3 tasks created; 3 items and 3 coins by this run\n/);
      expect(result.stderr).toMatch(/job j-[0-9a-z]+ \(\S*job\.jsonl\): 3 tasks for 3 items, 3 coins\n$/);
    }
  });
});

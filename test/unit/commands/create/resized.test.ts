/**
 * A terminal resized during `create --wait`: what is printed at the end (the tasks' table or cards, the hints) is laid
 * out for the width the terminal has then, not the one read when the run began.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, type Dispatcher } from 'undici';
import type { MemoryOutputStream } from '../../../../src/output/memory-io.js';
import { sandboxRun, settleTest } from '../run-in-process.js';

const S = 'domain_check_availability';
const ITEMS = Array.from({ length: 8 }, (_, i) => `d${i}.com`);

/** Sets the terminal's columns as the `at`-th read of a task (a poll) leaves: the window resized mid-wait. */
class ResizeAtPoll extends Agent {
  polls = 0;
  streams: MemoryOutputStream[] = [];
  constructor(
    private readonly at: number,
    private readonly columns: number,
  ) {
    super();
  }
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (options.method === 'GET' && /\/tasks\/\d+/.test(options.path) && ++this.polls === this.at)
      for (const stream of this.streams) Object.assign(stream, { columns: this.columns });
    return super.dispatch(options, handler);
  }
}

async function resized(from: number, to: number) {
  const { run } = await sandboxRun(500);
  const dispatcher = new ResizeAtPoll(2, to);
  try {
    const result = await run(['create', S, ...ITEMS, '--chunk-size', '4', '--wait', '-y'], {
      dispatcher,
      stdoutTTY: true,
      stderrTTY: true,
      columns: from,
      terminal: ({ stdout, stderr }) => dispatcher.streams.push(stdout, stderr),
    });
    expect(dispatcher.polls, 'the run polled its tasks past the resize').toBeGreaterThanOrEqual(2);
    return result;
  } finally {
    await dispatcher.close();
  }
}

/** The lines of `text` without their cursor and colour sequences. */
const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ''))
    .filter((line) => line.trim() !== '');

/** What stderr printed after the live block's last erase (`ESC[2K`): the lines that stay on the screen at the end. */
const afterLiveBlock = (stderr: string) => stderr.slice(stderr.lastIndexOf('\u001b[2K'));

afterEach(settleTest);

describe('create --wait in a terminal resized mid-wait', () => {
  it('narrowed from 120 to 40 columns: the final table and hints fit 40 columns (cards, hints wrapped at spaces)', async () => {
    const result = await resized(120, 40);
    expect(result.code, result.stderr).toBe(0);
    const end = [...lines(result.stdout), ...lines(afterLiveBlock(result.stderr))];
    expect(end.join('\n')).toMatch(/taskctl show --job/);
    for (const line of end) expect(line.length, line).toBeLessThanOrEqual(39);
    expect(result.stderr).toMatch(/\n\s*taskctl show --job j-[0-9a-z]+\n/);
  });

  it('widened from 40 to 120 columns: the final tasks are one table, not 40-column cards', async () => {
    const result = await resized(40, 120);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^\s*ID\s+SERVICE\s+STATUS/m);
    expect(result.stdout).toMatch(/domain_check_availability\s+completed/);
  });
});

/** Ctrl-C of a large job at a terminal: one screen of counts and ranges ending with the next step; a pipe gets every record. */
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, type Dispatcher } from 'undici';
import { sandboxRun, settleTest } from '../run-in-process.js';

const S = 'domain_check_availability';
const ITEMS = Array.from({ length: 30 }, (_, i) => `d${i}.com`);
/**
 * Ctrl-C as this POST leaves: 22 tasks created before it, more than the 20 lines the screen may take were each named
 * on a line of its own.
 */
const CTRL_C_AT_POST = 23;

/** Aborts the run's signal as the `at`-th POST /tasks leaves: a Ctrl-C part-way through a job. */
class CtrlCAtPost extends Agent {
  private posts = 0;
  constructor(
    private readonly controller: AbortController,
    private readonly at: number,
  ) {
    super();
  }
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (options.method === 'POST' && options.path.endsWith('/tasks') && ++this.posts === this.at)
      this.controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError' }));
    return super.dispatch(options, handler);
  }
}

async function interrupted(terminal: { stdoutTTY: boolean; columns?: number }) {
  const { run } = await sandboxRun(500);
  const controller = new AbortController();
  const dispatcher = new CtrlCAtPost(controller, CTRL_C_AT_POST);
  try {
    return await run(['create', S, ...ITEMS, '--chunk-size', '1'], {
      dispatcher,
      signal: controller.signal,
      stderrTTY: terminal.stdoutTTY,
      ...terminal,
    });
  } finally {
    await dispatcher.close();
  }
}

afterEach(settleTest);

describe('the screen after Ctrl-C of a 30-chunk job', () => {
  for (const columns of [40, 80]) {
    it(`fits one screen at ${columns} columns: counts and ranges, then the next step`, async () => {
      const result = await interrupted({ stdoutTTY: true, columns });
      expect(result.code, result.stderr).toBe(130);
      const lines = (result.stdout + result.stderr).split('\n').filter((line) => line.trim() !== '');
      expect(lines.length, lines.join('\n')).toBeLessThanOrEqual(20);
      expect(result.stderr).toMatch(/created 2\d of 30 tasks\s+before\s+that:\s+\d+–\d+/);
      expect(lines.slice(-2).join(' ')).toMatch(/taskctl resume\s+j-[0-9a-z]+$/);
    });
  }

  it('on a pipe stdout still gets every task created', async () => {
    const result = await interrupted({ stdoutTTY: false });
    expect(result.code, result.stderr).toBe(130);
    const created = Number(/created (\d+) of 30 tasks/.exec(result.stderr)?.[1]);
    expect(created).toBeGreaterThan(20);
    const records = result.stdout.split('\n').filter((line) => /^\s*\d+\s/.test(line));
    expect(records).toHaveLength(created);
  });
});

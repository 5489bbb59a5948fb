/**
 * `watch`'s times: a new status at the service's own time, moved counts and the first record of an unfinished task at
 * the time seen; one time in every format.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, T0, mockApi, runTaskctl, type MockApi } from '../run-in-process.js';
import { isoSeconds } from '../../../../src/output/times.js';

const STARTED = '2025-01-15T11:00:00Z'; // an hour before the watch starts (T0)
const COMPLETED = '2025-01-15T12:30:00Z';

const task = (completed: number, status = 'processing') => ({
  id: 7,
  service: 'domain_check_availability',
  status,
  total_items: 3,
  completed_items: completed,
  failed_items: 0,
  cost: 3,
  created_at: '2025-01-15T10:59:00Z',
  started_at: STARTED,
  ...(status === 'completed' ? { completed_at: COMPLETED } : {}),
});

/** The task seen processing (0, then 1, then 2 items done), then completed. */
function api(bodies: readonly object[] = [task(0), task(1), task(2), task(3, 'completed')]): MockApi {
  const mock = mockApi();
  for (const body of bodies) mock.reply('GET', '/tasks/7', 200, { success: true, data: body });
  return mock;
}

/** The time of each line: human lines and tsv rows start with it, ndjson has it in `timestamp`. */
async function times(format: string, mock = api()): Promise<{ times: string[]; lines: string[] }> {
  const clock = new FakeClock();
  const result = await runTaskctl(['watch', '7', '-o', format], { api: mock, clock });
  expect(result.code).toBe(0);
  const lines = result.stdout.trim().split('\n');
  const rows = lines.filter((line) => !line.startsWith('timestamp'));
  const stamps = rows.map((line) =>
    format === 'ndjson' ? (JSON.parse(line) as { timestamp: string }).timestamp : (line.split(/\s/)[0] ?? ''),
  );
  return { times: stamps, lines: rows };
}

describe('watch: times', () => {
  it('a progress line carries the time it was seen, not the start time; a new status the service time', async () => {
    const { times: human, lines } = await times('table');
    expect(human).toHaveLength(4);
    // The first record of a running task and counts that moved: the time seen, never the task's start time.
    for (const at of human.slice(0, 3)) expect(at).toBe(isoSeconds(T0));
    expect(human[3]).toBe(COMPLETED);
    expect(lines[3]).toBe(`${COMPLETED}  task 7       domain_check_availability  completed   3/3`);
  });

  it('the first record of a running task is stamped when it was seen, in every format', async () => {
    const mock = () => api([task(2), task(3, 'completed')]);
    for (const format of ['table', 'tsv', 'ndjson']) {
      const { times: stamps, lines } = await times(format, mock());
      expect(stamps, format).toEqual([isoSeconds(T0), COMPLETED]);
      if (format === 'table')
        expect(lines[0]).toBe(`${isoSeconds(T0)}  task 7       domain_check_availability  processing  2/3`);
    }
  });

  it('a status that changes to running while watched is stamped with the service time for it', async () => {
    const queued = { ...task(0, 'pending'), started_at: undefined };
    const started = isoSeconds(T0 + 1000); // a second after it was seen queued
    const running = { ...task(0), started_at: started };
    const { times: stamps } = await times(
      'table',
      api([queued, running, { ...task(3, 'completed'), started_at: started }]),
    );
    expect(stamps).toEqual([isoSeconds(T0), started, COMPLETED]);
  });

  it('each event has the same time in human lines, tsv rows and ndjson events', async () => {
    const human = (await times('table')).times;
    const tsv = (await times('tsv')).times;
    const ndjson = (await times('ndjson')).times;
    expect(tsv).toEqual(human);
    // ndjson has the status changes only (as a webhook would): the first and the last.
    expect(ndjson).toEqual([human[0], human[3]]);
    expect(human.every((at) => at === isoSeconds(Date.parse(at)))).toBe(true);
  });

  it('a service whose clock is off this one (its Date headers): times seen are told on its clock, so the records never run backwards', async () => {
    const skew = -7 * 60_000; // the service's clock 7 minutes behind
    const date = { date: new Date(T0 + skew).toUTCString() };
    const mock = mockApi();
    const completedThere = new Date(T0 + skew).toISOString().replace(/\.\d+Z$/, 'Z');
    for (const body of [task(1), task(2), { ...task(3, 'completed'), completed_at: completedThere }])
      mock.reply('GET', '/tasks/7', 200, { success: true, data: body }, { headers: date });
    const { times: stamps } = await times('table', mock);
    // The two progress records on the service's clock (within the second its Date header gives), then its completion.
    for (const at of stamps.slice(0, 2)) expect(Math.abs(Date.parse(at) - (T0 + skew))).toBeLessThanOrEqual(1000);
    expect(stamps[2]).toBe(completedThere);
    expect([...stamps].sort()).toEqual(stamps);
  });

  it('a skew learnt part-way (first within 2 s, then 3 s behind): the times seen never go back', async () => {
    const mock = mockApi();
    const replies: Array<[object, number]> = [
      [task(1), 0],
      [task(2), -3000],
      [task(2, 'processing'), -3000],
    ];
    for (const [body, skew] of replies)
      mock.reply(
        'GET',
        '/tasks/7',
        200,
        { success: true, data: body },
        { headers: { date: new Date(T0 + skew).toUTCString() } },
      );
    mock.reply('GET', '/tasks/7', 200, { success: true, data: task(3, 'completed') });
    const { times: stamps } = await times('tsv', mock);
    const seen = stamps.slice(0, -1).map((at) => Date.parse(at));
    for (let i = 1; i < seen.length; i++) expect(seen[i], stamps.join(' ')).toBeGreaterThanOrEqual(seen[i - 1] ?? 0);
  });

  it('a task the service reports going back (processing, then pending): its pending row is not stamped before its last', async () => {
    const pending = { ...task(0, 'pending'), started_at: undefined };
    const { times: stamps } = await times('tsv', api([task(1), pending, task(3, 'completed')]));
    // Pending's own time is its created_at, an hour before the row above it: the row keeps the time of that one.
    expect(stamps).toEqual([isoSeconds(T0), isoSeconds(T0), COMPLETED]);
  });

  it("a status at the service's own time never before the task's progress row seen just before it", async () => {
    const date = { date: new Date(T0 - 1000).toUTCString() }; // a second behind: within 2 s, the times seen are as is
    const completedThere = new Date(T0 - 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    const mock = () => {
      const answers = mockApi();
      for (const body of [task(1), task(2), { ...task(3, 'completed'), completed_at: completedThere }])
        answers.reply('GET', '/tasks/7', 200, { success: true, data: body }, { headers: date });
      return answers;
    };
    // The completion keeps the time of the row before it, in every format (ndjson: the first record and the last).
    for (const format of ['table', 'tsv', 'ndjson']) {
      const { times: stamps } = await times(format, mock());
      expect(stamps, format).toEqual(
        format === 'ndjson' ? [isoSeconds(T0), isoSeconds(T0)] : [isoSeconds(T0), isoSeconds(T0), isoSeconds(T0)],
      );
    }
  });

  it("a clock within 2 s of this one is not corrected: the times seen are this machine's", async () => {
    const date = { date: new Date(T0 + 1000).toUTCString() };
    const mock = mockApi();
    for (const body of [task(1), task(3, 'completed')])
      mock.reply('GET', '/tasks/7', 200, { success: true, data: body }, { headers: date });
    const { times: stamps } = await times('table', mock);
    expect(stamps).toEqual([isoSeconds(T0), COMPLETED]);
  });
});

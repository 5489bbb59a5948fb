/**
 * The Clock contract's sleep and its signal (src/lib/time.ts): a woken sleep lets go of the signal, as systemClock's
 * does, so a run's many sleeps on one signal (a wait's rounds, a lock's polling) never pile up listeners. Checked on
 * the tests' one fake clock (test/clock.ts), which plays that contract for every unit test.
 */
import { getEventListeners } from 'node:events';
import { expect, it } from 'vitest';
import { FakeClock } from '../../clock.js';

it('a woken sleep lets go of its signal; one still asleep holds one listener', async () => {
  const clock = new FakeClock({ auto: false });
  const controller = new AbortController();
  for (let i = 0; i < 20; i++) {
    const slept = clock.sleep(1_000, controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    await clock.runUntilIdle();
    await slept;
  }
  expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
});

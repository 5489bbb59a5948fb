/** The smoke version of the `webhook listen` load test (the full one: `npm run load:listen`). */
import { describe, expect, it } from 'vitest';
import { runListenLoad } from '../load/listen-load.js';

describe('webhook listen under load (smoke)', () => {
  // 40 events (each runs a shell): the full run (`npm run load:listen`) has 2,300.
  it(
    'prints, forwards and executes each of 40 acknowledged events exactly once, with the app failing 30%',
    { timeout: 90_000 },
    async () => {
      const result = await runListenLoad({ tasks: 20, burst: 20, failRate: 0.3, replayRate: 0.2, concurrency: 4 });
      expect(result.acknowledged).toBe(40);
      expect(result.printed).toEqual({ once: 40, missing: 0, extra: 0 });
      expect(result.forwarded).toEqual({ once: 40, missing: 0, extra: 0 });
      expect(result.executed).toEqual({ once: 40, missing: 0, extra: 0 });
      // The app's failures reached the service as 502s, which it delivered again.
      expect(result.refused[502]).toBeGreaterThan(0);
      expect(result.duplicatesLogged).toBe(result.replays);
      expect(result.exitCode).toBe(0);
      expect(result.peakRssMb).toBeLessThan(200);
    },
  );
});

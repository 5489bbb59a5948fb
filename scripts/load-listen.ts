/**
 * `npm run load:listen`: the full load test of `webhook listen` (test/load/listen-load.ts): 2,000 signed events
 * (1,000 tasks) in bursts of 200, the forward target failing 30%, a 50 ms exec command, 10% replays; then 300 bodies
 * of ~1 MiB in bursts of 100. Prints the counts and the peak RSS; exit 1 when an acknowledged event was not printed,
 * forwarded and executed exactly once, or the peak RSS passed 200 MB.
 */
import { runListenLoad } from '../test/load/listen-load.js';

const runs = [
  { name: 'small events', tasks: 1000, burst: 200, failRate: 0.3, replayRate: 0.1, concurrency: 8 },
  { name: '1 MiB events', tasks: 150, burst: 100, failRate: 0.3, replayRate: 0.1, concurrency: 8, padding: 1_000_000 },
];
let failed = false;
for (const { name, ...options } of runs) {
  const result = await runListenLoad(options);
  console.log(`${name}: ${JSON.stringify(result)}`);
  const exact = [result.printed, result.forwarded, result.executed].every(
    (t) => t.once === result.acknowledged && t.missing === 0 && t.extra === 0,
  );
  if (!exact || result.acknowledged !== result.events || result.peakRssMb > 200 || result.exitCode !== 0) failed = true;
}
process.exitCode = failed ? 1 : 0;

/** `npm run campaign [runs] [seed]`: the long exactly-once campaign (default 1,000 runs); exit 1 on any violation. */
import { formatTable, runCampaign } from './exactly-once.js';

const runs = Number(process.argv[2] ?? 1000);
const seed = Number(process.argv[3] ?? Date.now() % 1_000_000);
const started = Date.now();
const records = await runCampaign({ runs, seed, lanes: 6, spawnedGroups: Math.max(1, Math.round(runs / 100)) });
console.log(
  `exactly-once campaign: ${records.length} runs, seed ${seed}, ${Math.round((Date.now() - started) / 1000)} s`,
);
console.log(formatTable(records));
const violations = records.filter((r) => r.outcome === 'VIOLATION');
for (const v of violations)
  console.log(`VIOLATION ${v.mode} ${v.fault}/${v.getFault} exit ${v.code}: ${v.detail ?? ''}`);
process.exitCode = violations.length > 0 ? 1 : 0;

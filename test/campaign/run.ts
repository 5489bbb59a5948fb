/**
 * `npm run campaign [creates] [seed]`: the long exactly-once campaign (docs/development.md#campaigns) (default 320 creates, overlap.ts);
 * exit 1 on any violation.
 */
import { formatTable, runCampaign } from './overlap.js';

const creates = Number(process.argv[2] ?? 320);
const seed = Number(process.argv[3] ?? Date.now() % 1_000_000);
const started = Date.now();
const records = await runCampaign({ creates, seed, lanes: 4 });
console.log(
  `exactly-once campaign (overlapping creates): ${records.length} runs, seed ${seed}, ${Math.round((Date.now() - started) / 1000)} s`,
);
console.log(formatTable(records));
for (const r of records.filter((r) => r.outcome === 'VIOLATION' || r.outcome === 'cross-machine'))
  console.log(
    `${r.outcome} ${r.world} ${r.sharing ? 'shared' : 'separate'} ${r.fault} exit ${r.code}: ${r.detail ?? ''}`,
  );
process.exitCode = records.some((r) => r.outcome === 'VIOLATION') ? 1 : 0;

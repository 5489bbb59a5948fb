/** `npm run campaign` (second part): the journal's crash campaign, long form; exit 1 on any violation. */
import { formatReport, runJournalCampaign } from './journal.js';

const kills = Number(process.argv[2] ?? 30);
const seed = Number(process.argv[3] ?? Date.now() % 1_000_000);
const started = Date.now();
const report = await runJournalCampaign({
  chunks: 60,
  chunkSize: 5,
  kills,
  seed,
  faultRate: 0.3,
  timerMaxMs: 2500,
  log: (line) => process.stderr.write(`${line}\n`),
});
console.log(`journal crash campaign: 60 chunks, seed ${seed}, ${Math.round((Date.now() - started) / 1000)} s`);
console.log(formatReport(report));
const killed = report.kills.sent + report.kills.answered + report.kills.timer;
if (killed < kills) console.log(`only ${killed} kills were delivered (${kills} asked)`);
process.exitCode = report.violations.length > 0 || killed < kills ? 1 : 0;

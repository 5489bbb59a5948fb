/** The journal's crash campaign, short form: `npm run campaign` runs the long one (≥ 50 chunks, ≥ 30 kills). */
import { expect, it } from 'vitest';
import { formatReport, runJournalCampaign } from './journal.js';

it('a journaled chunked create killed at random instants and resumed puts every item in exactly one task', async () => {
  const seed = Number(process.env.CAMPAIGN_SEED ?? Date.now() % 1_000_000);
  // Faults that end in a 10 s reconciliation (a 500 or a reset after the POST) are the long form's.
  const report = await runJournalCampaign({
    chunks: 12,
    chunkSize: 3,
    kills: 4,
    seed,
    faultRate: 0.3,
    timerMaxMs: 800,
    faults: ['post-reset-before', 'list-503'],
  });
  console.log(`journal crash campaign, seed ${seed} (CAMPAIGN_SEED=${seed} replays it)\n${formatReport(report)}`);
  expect(report.violations).toEqual([]);
  expect(report.kills.sent + report.kills.answered + report.kills.timer).toBeGreaterThanOrEqual(4);
  expect(report.items).toBe(36);
}, 90_000);

/** The journal's crash campaign, short form: `npm run campaign` runs the long one (≥ 50 chunks, ≥ 30 kills). */
import { expect, it } from 'vitest';
import { formatReport, runJournalCampaign } from './journal.js';

it('a journaled chunked create killed at random instants and resumed puts every item in exactly one task', async () => {
  const seed = Number(process.env.CAMPAIGN_SEED ?? Date.now() % 1_000_000);
  // Faults that end in a 10 s reconciliation (a 500 or a reset after the POST) are the long form's; so are most kills:
  // each chunk caught in flight is settled only after its send time plus the horizon (about 13 s with a 1 s deadline),
  // so two kills that both land in flight took 40 s of the suite. One kill here; the long form sends 30 or more.
  const report = await runJournalCampaign({
    chunks: 10,
    chunkSize: 3,
    kills: 1,
    seed,
    faultRate: 0.3,
    timerMaxMs: 800,
    faults: ['post-reset-before', 'list-503'],
  });
  console.log(`journal crash campaign, seed ${seed} (CAMPAIGN_SEED=${seed} replays it)\n${formatReport(report)}`);
  expect(report.violations).toEqual([]);
  expect(report.kills.sent + report.kills.answered + report.kills.timer).toBeGreaterThanOrEqual(1);
  expect(report.items).toBe(30);
}, 90_000);

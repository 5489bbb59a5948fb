/** The exactly-once campaign's short form (about 40 overlapping creates); `npm run campaign` runs the long one (320). */
import { expect, it } from 'vitest';
import { formatTable, runCampaign } from './overlap.js';

it('exactly-once campaign: overlapping identical creates, each through its own faulty proxy, agree with what each proxy saw created', async () => {
  const seed = Number(process.env.CAMPAIGN_SEED ?? Date.now() % 1_000_000);
  const records = await runCampaign({ creates: 40, seed, lanes: 4 });
  console.log(`exactly-once campaign, seed ${seed} (CAMPAIGN_SEED=${seed} replays it)\n${formatTable(records)}`);
  const violations = records.filter((r) => r.outcome === 'VIOLATION');
  expect(violations.map((v) => `${v.world} ${v.fault} exit ${v.code}: ${v.detail ?? ''}`)).toEqual([]);
  expect(records.length).toBeGreaterThanOrEqual(40);
  expect(new Set(records.map((r) => r.world)).size).toBe(3);
}, 120_000);

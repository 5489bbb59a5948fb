/** The exactly-once campaign's short form (about 100 runs): `npm run campaign` runs the long one (1,000). */
import { expect, it } from 'vitest';
import { formatTable, POST_FAULTS, runCampaign } from './exactly-once.js';

/**
 * The spawned group (real processes, real clock) draws no delay past the request timeout: such a run waits out the
 * whole 10 s window in real time. Those faults run in-process here (compressed time) and spawned in the long form.
 */
const SPAWNED_FAULTS = POST_FAULTS.filter((f) => f !== 'delay-past-timeout' && f !== 'delay-beyond-window');

it('exactly-once campaign: 100 creates of identical items under random faults agree with the sandbox', async () => {
  const seed = Number(process.env.CAMPAIGN_SEED ?? Date.now() % 1_000_000);
  const records = await runCampaign({ runs: 100, seed, lanes: 25, spawnedGroups: 1, spawnedFaults: SPAWNED_FAULTS });
  const table = formatTable(records);
  console.log(`exactly-once campaign, seed ${seed} (CAMPAIGN_SEED=${seed} replays it)\n${table}`);
  const violations = records.filter((r) => r.outcome === 'VIOLATION');
  expect(violations.map((v) => `${v.mode} ${v.fault}/${v.getFault} exit ${v.code}: ${v.detail ?? ''}`)).toEqual([]);
  expect(records.length).toBeGreaterThanOrEqual(100);
}, 120_000);

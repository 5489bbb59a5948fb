import { expect, test } from 'vitest';
import { mockApi, runTaskctl } from './run-in-process.js';

const balance = { success: true, data: { balance: 5, currency: 'coins' } };

test('verify fails when a reply was registered but the command never asked for it', async () => {
  const api = mockApi();
  api.reply('GET', '/balance', 200, balance);
  api.reply('GET', '/services', 200, { success: true, data: [] });
  expect((await runTaskctl(['balance', '-o', 'json'], { api })).code).toBe(0);
  expect(() => {
    api.verify();
  }).toThrow(/1 mocked request\(s\) never made: GET \/services/);
  // Used up by hand here, so the automatic check after this test has nothing left to report.
  api.allowUnused();
});

test('verify passes once every reply was used, and allowUnused lets a test leave optional replies', async () => {
  const api = mockApi();
  api.reply('GET', '/balance', 200, balance);
  expect((await runTaskctl(['balance', '-o', 'json'], { api })).code).toBe(0);
  expect(() => {
    api.verify();
  }).not.toThrow();

  const optional = mockApi();
  optional.reply('GET', '/services', 200, { success: true, data: [] });
  optional.allowUnused();
  expect(() => {
    optional.verify();
  }).not.toThrow();
});

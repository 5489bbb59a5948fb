/** `taskctl services` in-process: the server's data kept in machine output (issue 13), fixed columns in tsv/csv. */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from './harness.js';

const SERVICE = {
  service: 'domain_check_availability',
  display_name: 'Domain check',
  description: 'Is the domain free?',
  pricing: 1,
  currency: 'coins',
};

function servicesApi() {
  const api = mockApi();
  api.reply('GET', '/services', 200, {
    success: true,
    data: [{ ...SERVICE, max_items: 10000, platforms: ['web'], beta: false }],
    meta: { total: 1, currency: 'coins' },
  });
  return api;
}

describe('services (in-process)', () => {
  it('keeps unknown fields and their JSON types in -o json', async () => {
    const result = await runTaskctl(['services', '-o', 'json'], { api: servicesApi() });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([{ ...SERVICE, max_items: 10000, platforms: ['web'], beta: false }]);
  });

  it('keeps unknown fields in -o ndjson', async () => {
    const result = await runTaskctl(['services', '-o', 'ndjson'], { api: servicesApi() });
    expect(JSON.parse(result.stdout)).toMatchObject({ beta: false, platforms: ['web'] });
  });

  it('prints the documented columns only in csv, whatever the server adds', async () => {
    const result = await runTaskctl(['services', '-o', 'csv'], { api: servicesApi() });
    expect(result.stdout).toBe(
      'service,display_name,pricing,currency,description\ndomain_check_availability,Domain check,1,coins,Is the domain free?\n',
    );
  });
});

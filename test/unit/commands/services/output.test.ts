/** `taskctl services` in-process: the server's data kept in machine output, fixed columns in tsv/csv. */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../run-in-process.js';
import { textWidth } from '../../../../src/output/width.js';

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

  it('--columns chooses and orders csv columns; an unknown one is exit 2 with the valid names', async () => {
    const csv = await runTaskctl(['services', '--columns', 'pricing,service', '-o', 'csv'], { api: servicesApi() });
    expect(csv.stdout).toBe('pricing,service\n1,domain_check_availability\n');
    const bad = await runTaskctl(['services', '--columns', 'price_per_item'], { api: mockApi() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('service, display_name, pricing, currency, description');
  });
});

/** The sandbox's four services, as a real terminal shows them (DESCRIP/TION wrapped at 80 and 120). */
const SANDBOX_LIKE = [
  {
    service: 'domain_check_availability',
    display_name: 'Domain availability check',
    pricing: 1,
    description: 'Checks whether each domain name is available for registration.',
  },
  {
    service: 'domain_whois_history',
    display_name: 'Domain WHOIS history',
    pricing: 5,
    description: 'Returns the registration history (registrations, transfers, renewals) of each domain.',
  },
  {
    service: 'fanpage_extract_contact',
    display_name: 'Fan page contact extraction',
    pricing: 3,
    description: 'Extracts public contact e-mail addresses and phone numbers from each Facebook fan page.',
  },
  {
    service: 'email_verify',
    display_name: 'E-mail address verification',
    pricing: 2,
    description: 'Checks whether each e-mail address can receive mail.',
  },
].map((s) => ({ ...s, currency: 'coins' }));

describe('services on a terminal', () => {
  const run = (columns: number, args: string[] = []) => {
    const api = mockApi();
    api.reply('GET', '/services', 200, { success: true, data: SANDBOX_LIKE, meta: { total: 4, currency: 'coins' } });
    return runTaskctl(['services', ...args], { api, stdoutTTY: true, columns, env: { NO_COLOR: '1' } });
  };

  for (const width of [80, 120]) {
    it(`fits ${width} columns: whole headers, descriptions cut at a word with …`, async () => {
      const result = await run(width);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(5);
      for (const line of lines) expect(textWidth(line)).toBeLessThanOrEqual(width);
      expect(lines[0]).toMatch(/^SERVICE +.*PRICE +.*DESCRIPTION$/);
      for (const line of lines.slice(1)) {
        const description = line.slice((lines[0] ?? '').indexOf('DESCRIPTION'));
        const full = SANDBOX_LIKE.find((s) => line.startsWith(s.service))?.description ?? '';
        // Either whole, or a prefix cut after a whole word.
        if (description !== full) {
          expect(description.endsWith('…')).toBe(true);
          expect(
            full.startsWith(`${description.slice(0, -1)} `) || full.startsWith(`${description.slice(0, -1)},`),
          ).toBe(true);
        }
      }
    });
  }

  it('at 120 columns keeps the name; --wide shows everything whole', async () => {
    expect((await run(120)).stdout).toContain('Domain availability check');
    const wide = await run(80, ['--wide']);
    for (const s of SANDBOX_LIKE) expect(wide.stdout).toContain(s.description);
    expect(wide.stdout).toContain('CURRENCY');
  });
});

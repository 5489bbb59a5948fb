/** `show` on a terminal with nested results: readable `key: value` lines wrapped in the column, no JSON, no `…`. */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../harness.js';
import { textWidth } from '../../../../src/output/width.js';

const records = [
  { date: '2005-02-24', registrar: 'Tucows', event: 'registered' },
  { date: '2014-07-07', registrar: 'Cloudflare Registrar', event: 'transferred' },
];

describe('show with nested results on a terminal', () => {
  for (const columns of [80, 50]) {
    it(`at ${columns} columns: every record readable, wrapped at words, nothing cut`, async () => {
      const api = mockApi();
      api.reply('GET', '/tasks/3', 200, {
        success: true,
        data: {
          id: 3,
          service: 'domain_whois_history',
          status: 'completed',
          total_items: 1,
          cost: 5,
          created_at: '2025-01-15T11:00:00Z',
          items: [{ target: 'a.com', status: 'completed', data: { records } }],
        },
      });
      const result = await runTaskctl(['show', '3'], { api, stdoutTTY: true, columns, env: { NO_COLOR: '1' } });
      expect(result.code).toBe(0);
      const out = result.stdout;
      for (const line of out.split('\n')) expect(textWidth(line)).toBeLessThan(columns);
      expect(out).not.toMatch(/[{}[\]"]|…/);
      const words = out.replace(/\s+/g, ' ');
      expect(words).toContain('date: 2005-02-24, registrar: Tucows, event: registered');
      expect(words).toContain('date: 2014-07-07, registrar: Cloudflare Registrar, event: transferred');
      expect(out).not.toMatch(/^TARGET.*ERROR/m);
    });
  }
});

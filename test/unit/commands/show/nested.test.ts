/** `show` on a terminal with nested results: readable `key: value` lines wrapped in the column, no JSON, no `…`. */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../run-in-process.js';
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

describe('a list inside an object in the result', () => {
  const task = {
    success: true,
    data: {
      id: 5,
      service: 'domain_check_availability',
      status: 'completed',
      total_items: 2,
      cost: 2,
      created_at: '2025-01-15T11:00:00Z',
      items: [
        { target: 'a.com', status: 'completed', data: { available: true, nested: { a: [1, { b: 'x y' }] } } },
        { target: 'b.com', status: 'completed', data: { available: false, nested: { a: [{ c: 2 }, { b: 'z' }] } } },
      ],
    },
  };

  it('reads like a top-level list on a terminal: one element a line, no JSON', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/5', 200, task);
    const result = await runTaskctl(['show', '5'], { api, stdoutTTY: true, columns: 80, env: { NO_COLOR: '1' } });
    expect(result.code).toBe(0);
    const table = result.stdout.slice(result.stdout.indexOf('TARGET'));
    expect(table).not.toMatch(/[{}[\]"]/);
    expect(table).toMatch(/^TARGET +STATUS +AVAILABLE +NESTED\.A$/m);
    expect(table).toMatch(/^a\.com +completed +true +1$/m);
    expect(table).toMatch(/^ +b: x y$/m);
    expect(table).toMatch(/^b\.com +completed +false +c: 2$/m);
    expect(table).toMatch(/^ +b: z$/m);
  });

  it('machine formats keep the flat JSON cell and the JSON values', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/5', 200, task, { times: 2 });
    const csv = await runTaskctl(['show', '5', '-o', 'csv'], { api, stdoutTTY: true, columns: 80 });
    expect(csv.stdout).toContain('5,b.com,completed,false,"[{""c"":2},{""b"":""z""}]",');
    const ndjson = await runTaskctl(['show', '5', '-o', 'ndjson'], { api });
    expect(JSON.parse(ndjson.stdout.split('\n')[1] ?? '')).toMatchObject({ nested: { a: [{ c: 2 }, { b: 'z' }] } });
  });
});

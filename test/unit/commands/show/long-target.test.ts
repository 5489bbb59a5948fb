/**
 * A target longer than the terminal's width in `show`'s cards (the items table stacked): kept whole on a line of its
 * own, never cut inside (a copy from the screen is the target), even where the line passes the width and the terminal
 * wraps it (docs/behaviour.md#for-people).
 */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../run-in-process.js';

const target = `averyveryvery${'long'.repeat(15)}targetwithoutanyspaces.example.com`;

describe('show with a target wider than the terminal', () => {
  for (const columns of [80, 40]) {
    it(`at ${columns} columns: the target whole on its own line of the card`, async () => {
      expect(target.length).toBeGreaterThan(80);
      const api = mockApi();
      api.reply('GET', '/tasks/6', 200, {
        success: true,
        data: {
          id: 6,
          service: 'domain_check_availability',
          status: 'completed',
          total_items: 1,
          cost: 1,
          created_at: '2025-01-15T11:00:00Z',
          items: [{ target, status: 'failed', data: null, error: 'Simulated item failure (item starts with "fail-")' }],
        },
      });
      const result = await runTaskctl(['show', '6'], { api, stdoutTTY: true, columns, env: { NO_COLOR: '1' } });
      expect(result.code).toBe(0);
      const lines = result.stdout.split('\n');
      expect(lines).toContain('TARGET:');
      expect(lines).toContain(`  ${target}`);
      expect(result.stdout).toMatch(/^STATUS: +failed$/m);
      // Every other line still fits.
      for (const line of lines) if (!line.includes(target)) expect(line.length, line).toBeLessThan(columns);
    });
  }
});

/**
 * vitest setup file, run before every test file of the unit and e2e projects (vitest.config.ts): after each test the
 * harness closes its sandboxes and checks that every mocked request was used (gh's httpmock `Verify`).
 */
import { afterEach } from 'vitest';
import { settleTest } from '../unit/commands/harness.js';

afterEach(settleTest);

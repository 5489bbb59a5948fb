/**
 * vitest setup file, run before every test file of the unit and e2e projects (vitest.config.ts): after each test the
 * sandboxes `runTaskctl` started are closed and every mocked request is checked as used (a mock never asked for is a failure). After each
 * file, V8's memory-saving mode is switched off again: the client turns it on for the rest of the process when it
 * parses a large answer as it streams (src/api/request.ts), and in a shared worker it would slow every later file
 * (about 15% more CPU for in-process commands). With TASKCTL_TEST_CPU=FILE, each file's and each test's CPU goes to
 * FILE (test/setup/cpu-by-file.ts).
 */
import { setFlagsFromString } from 'node:v8';
import { afterAll, afterEach } from 'vitest';
import { settleTest } from '../unit/commands/run-in-process.js';
import { recordCpuByFile } from './cpu-by-file.js';

afterEach(settleTest);
afterAll(() => setFlagsFromString('--no-optimize-for-size'));
if (process.env.TASKCTL_TEST_CPU) recordCpuByFile(process.env.TASKCTL_TEST_CPU);

/**
 * A terminal that reports no size: `script` started by a process with no terminal of its own gives its command a pty
 * of 0 columns and 0 rows (as some `docker run -t`, `ssh -t` and CI ptys do). A spinner on it used to clear an endless
 * number of lines, blocking the process so that only SIGKILL ended it (docs/behaviour.md#spinners-and-progress). The
 * bin is spawned: the subject is the process ending, on a real pty. Skipped without `script` (util-linux).
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, isolatedHome, runProcess, type IsolatedHome } from './spawn-cli.js';
import { missing, skippedUnless } from '../skip-reason.js';

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

/** The balance, answered after a second: long enough for the spinner (300 ms) to be drawn and turn. */
const server = createServer((_request, response) => {
  setTimeout(() => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ success: true, data: { balance: 5, currency: 'coins' } }));
  }, 1_000);
});
let home: IsolatedHome;

beforeAll(async () => {
  home = isolatedHome();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});

afterAll(() => {
  server.close();
  home.cleanup();
});

describe.skipIf(!hasScript)(skippedUnless('a pty of unknown size (script)', hasScript, missing('script')), () => {
  it('balance shows its spinner, clears it and ends', async () => {
    const { port } = server.address() as AddressInfo;
    // The inner bound (SIGKILL at 15 s) ends a taskctl that would otherwise outlive script on a blocked event loop.
    const command = `stty size; timeout -s KILL 15 '${process.execPath}' '${BIN}' balance; echo "EXIT=$?"`;
    const result = await runProcess('script', ['-qc', command, '/dev/null'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        LANG: 'C.UTF-8',
        ...home.env,
        TASKCTL_BASE_URL: `http://127.0.0.1:${port}/api/v1`,
        TASKCTL_API_KEY: 'tk_test_unsized',
      },
      timeoutMs: 20_000,
      label: 'taskctl balance under script',
    });
    const screen = result.stdout;
    expect(screen.startsWith('0 0'), screen.slice(0, 200)).toBe(true); // the pty's size was never set
    expect(screen, screen.slice(-500)).toContain('EXIT=0');
    expect(screen).toContain('reading the balance'); // the spinner was drawn
    expect(screen).toContain('5 coins');
    expect(screen.length).toBeLessThan(20_000);
  });
});

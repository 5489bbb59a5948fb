/**
 * The real headless browser for the dashboard tests: Debian's `chromium` driven by playwright-core (which never
 * downloads a browser). Missing outside CI, the tests skip with a notice; in CI (`.ci/run` installs it) missing fails.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';

const CHROMIUM_PATH = process.env.TASKCTL_CHROMIUM ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Not --single-process: a quarter less CPU (8.0 → 5.9 s over the browser's process tree), but chromium crashed
  // (SIGSEGV) at launch in one clean-clone run of the suite; the mode is unsupported.
];

/** True when the browser is there; otherwise says so once on stderr (and in CI throws: the install step failed). */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const ci =
    process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false' && process.env.CI !== '0';
  if (ci) throw new Error(`${CHROMIUM_PATH} is missing in CI: .ci/run should have installed chromium`);
  process.stderr.write(
    `\nNOTICE: browser tests skipped: ${CHROMIUM_PATH} not found (apt-get install -y chromium, or set TASKCTL_CHROMIUM)\n\n`,
  );
  return false;
}

export interface LaunchedBrowser {
  context: BrowserContext;
  close: () => Promise<void>;
}

/** One browser with a fresh profile directory (removed on close), at 1280×800, in a German locale. */
export async function launchChromium(): Promise<LaunchedBrowser> {
  // By `require`, as test/typescript.ts loads the compiler: imported as an ES module, Node first compiles its bundles
  // (7 MB) to tell whether they are CommonJS, then scans them for named exports.
  const { chromium } = createRequire(import.meta.url)('playwright-core') as typeof import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'taskctl-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    args: ARGS,
    headless: true,
    viewport: { width: 1280, height: 800 },
    // A locale whose numbers differ from the CLI's (12.345): the page must print counts as the CLI does.
    locale: 'de-DE',
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

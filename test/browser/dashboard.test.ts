/**
 * The sandbox dashboard driven in a real headless browser (Debian's chromium through playwright-core), end to end: the
 * page talks to a real sandbox, the CLI and a real `taskctl webhook listen` (run in this process, on a real socket).
 * One browser and one page for the whole file; the tests run in order and build on each other (the key is regenerated
 * last). The tasks the page shows are POSTed straight to the sandbox (the page's subject is the service's tasks, not
 * taskctl's create); the CLI runs where it is the subject: the balance that consumes a fault, the old key's 401.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.js';
import type { MemoryOutputStream } from '../../src/output/memory-io.js';
import { ctrlC, startWorld, waitFor, type E2EWorld } from '../e2e/spawn-cli.js';
import { runTaskctl } from '../unit/commands/run-in-process.js';
import { chromiumAvailable, launchChromium, type LaunchedBrowser } from './chromium.js';
import { missing, skippedUnless } from '../skip-reason.js';

const available = chromiumAvailable();

interface Delivery {
  id: number;
  state: string;
}

describe.runIf(available)(skippedUnless('sandbox dashboard in chromium', available, missing('chromium')), () => {
  let browser: LaunchedBrowser;
  let world: E2EWorld;
  let page: Page;
  let app: Server;
  let appStatus = 200;
  const appGot: string[] = [];
  let listenerOut = () => '';
  let listenerUrl = '';
  const closers: Array<() => Promise<unknown>> = [];

  const state = () =>
    world.admin<{ balance: number; apiKey: string; webhookUrl: string | null }>('GET', '/__sandbox/state?tasks=false');
  const deliveries = async () =>
    (await world.admin<{ deliveries: Delivery[] }>('GET', '/__sandbox/deliveries')).deliveries;

  // The set-up's own promise: a beforeAll past its bound goes on running, and afterAll waits for it before closing what
  // it started (a listener spawned after the closers ran outlived the run).
  let setUp: Promise<void> | undefined;
  beforeAll(() => (setUp = setUpFile()), 90_000); // a bound: starting a browser took over 30 s on a loaded machine

  async function setUpFile(): Promise<void> {
    // Each closed after the file, newest first: left open, the page kept its live feed to the sandbox busy in this
    // worker (shared with the files after it) until the run ended.
    const closing = <T extends { close: () => Promise<void> }>(opened: T): T => {
      closers.push(() => opened.close());
      return opened;
    };
    [browser, world] = await Promise.all([
      launchChromium().then(closing),
      startWorld({ itemMs: 150, webhookTimeScale: 1 }).then(closing),
    ]);
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    // The app behind `webhook listen --forward-to`: its answer decides the listener's (2xx → 200, else 502).
    app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (appStatus === 200) appGot.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(appStatus).end();
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const appPort = (app.address() as AddressInfo).port;
    closers.push(() => new Promise((resolve) => app.close(resolve)));
    // Port 0 and the port the listener reports: one picked here first could be taken by a parallel test meanwhile.
    // --no-wire: the page is what sets the sandbox's webhook URL here. In this process (`main()`, on the real clock):
    // the page's subject is what the sandbox delivers to a real listener on a real socket, not the listener's process.
    const stop = new AbortController();
    let stdout: MemoryOutputStream | undefined;
    let stderr: MemoryOutputStream | undefined;
    const listening = runTaskctl(
      ['webhook', 'listen', '--port', '0', '--no-wire', '--forward-to', `http://127.0.0.1:${appPort}/`, '-o', 'ndjson'],
      {
        env: world.env,
        home: world.home.dir,
        clock: systemClock,
        signal: stop.signal,
        terminal: (streams) => ({ stdout, stderr } = streams),
      },
    );
    closers.push(async () => {
      stop.abort(ctrlC('SIGTERM'));
      await listening;
    });
    listenerOut = () => stdout?.text() ?? '';
    const url = await waitFor(() => /listening for webhooks on (\S+);/.exec(stderr?.text() ?? ''), {
      describe: () => `the listener did not start: ${stderr?.text() ?? ''}`,
    });
    listenerUrl = url[1]!;
    await page.goto(world.sandbox.dashboard);
    await page.locator('#live.on').waitFor();
  }

  afterAll(async () => {
    await setUp?.catch(() => undefined); // its failure is the beforeAll's to report
    // Whatever beforeAll got to start, newest first.
    for (const close of closers.reverse()) await close();
  });

  it('shows the key masked, reveals and copies it', async () => {
    const key = world.sandbox.apiKey;
    const input = page.locator('#api-key');
    expect(await input.getAttribute('type')).toBe('password');
    expect(await input.inputValue()).not.toBe(key);
    await page.click('#key-reveal');
    expect(await input.inputValue()).toBe(key);
    expect(await page.getAttribute('#key-reveal', 'aria-pressed')).toBe('true');
    await page.click('#key-reveal');
    expect(await input.inputValue()).not.toBe(key);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: world.sandbox.origin });
    await page.click('#key-copy');
    await expect.poll(() => page.textContent('#key-note')).toContain('copied');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
  });

  it('shows tasks and their progress live, without a reload', async () => {
    const { id } = await world.createTask('domain_check_availability', ['a.com', 'b.com', 'c.com']);
    const row = page.locator(`#tasks-table tr[data-task="${id}"]`);
    await expect.poll(() => row.locator('td').nth(1).textContent()).toBe('domain_check_availability');
    await expect.poll(() => row.locator('.badge').textContent()).toBe('completed');
    expect(await row.locator('td').nth(3).textContent()).toBe('3 / 0 / 3');
    expect(await row.locator('.badge').getAttribute('class')).toBe('badge tone-success');
    expect(await page.textContent('#tasks-count')).toBe('(1)');
  });

  it('colours a completed task with a failed item as the CLI does: yellow (partial), never green', async () => {
    const { id } = await world.createTask('domain_check_availability', ['x.com', 'fail-y.com']);
    const row = page.locator(`#tasks-table tr[data-task="${id}"]`);
    await expect.poll(() => row.locator('.badge').getAttribute('class')).toBe('badge tone-partial');
    expect(await row.locator('.badge').textContent()).toBe('completed');
  });

  it('says it is loading until the first list of tasks arrives, never "No tasks yet" while tasks exist', async () => {
    // The file's page loaded again: a first load as a new page's, without a second page (and its renderer process).
    // Only the new document's list is held: the old one may still re-read the list for its live feed until it goes.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = false;
    let navigated = false;
    page.once('framenavigated', () => (navigated = true));
    const tasksList = (url: URL) => url.pathname === '/__sandbox/tasks';
    await page.route(tasksList, async (route) => {
      if (!navigated) return route.continue();
      asked = true;
      await held;
      await route.continue();
    });
    try {
      const loaded = page.reload();
      await expect.poll(() => asked).toBe(true);
      expect(await page.isVisible('#tasks-loading')).toBe(true);
      expect(await page.textContent('#tasks-loading')).toBe('Loading tasks…');
      expect(await page.isVisible('#tasks-empty')).toBe(false);
      expect(await page.isVisible('#tasks-table')).toBe(false);
      release();
      await loaded;
      await page.locator('#tasks-table tbody tr').first().waitFor();
      expect(await page.isVisible('#tasks-loading')).toBe(false);
      expect(await page.isVisible('#tasks-empty')).toBe(false);
    } finally {
      release();
      await page.unroute(tasksList);
    }
    await page.locator('#live.on').waitFor();
  });

  it('opens a task and shows its items: each target, its status, its result or error', async () => {
    const { id } = await world.createTask('domain_check_availability', ['p.com', 'fail-q.com']);
    const row = page.locator(`#tasks-table tr[data-task="${id}"]`);
    await expect.poll(() => row.locator('.badge').textContent()).toBe('completed');
    await row.getByRole('button', { name: `Open task ${id} and its items` }).click();
    const panel = page.locator('#task-detail');
    await panel.waitFor();
    expect(await page.evaluate('document.activeElement.id')).toBe('task-detail');
    expect(await page.textContent('#task-detail-h')).toBe(`Task ${id} · domain_check_availability`);
    expect(await page.textContent('#task-summary')).toBe('completed 1 completed, 1 failed of 2');
    const items = panel.locator('#task-items tbody tr');
    await expect.poll(() => items.count()).toBe(2);
    expect(await items.nth(0).locator('td').allTextContents()).toEqual([
      '1',
      'p.com',
      'completed',
      expect.stringMatching(/^\{"available":(true|false)\}$/),
    ]);
    expect(await items.nth(1).locator('td').allTextContents()).toEqual([
      '2',
      'fail-q.com',
      'failed',
      expect.stringContaining('Simulated item failure'),
    ]);
    await page.click('#task-close');
    expect(await panel.isVisible()).toBe(false);
    expect(await page.evaluate('document.activeElement.getAttribute("data-focus")')).toBe(`open-${id}`);
  });

  it('edits the balance, and shows a balance changed elsewhere', async () => {
    await page.fill('#balance', '12345');
    await page.press('#balance', 'Enter');
    await expect.poll(async () => (await state()).balance).toBe(12345);
    // A count as the CLI prints it for a person, whatever the browser's locale.
    await expect.poll(() => page.textContent('#balance-note')).toContain('Balance set to 12,345 coins.');
    // The field still has the focus but is not being edited: it follows the server.
    await world.admin('POST', '/__sandbox/balance', { balance: 555 });
    await expect.poll(() => page.inputValue('#balance')).toBe('555');
    await page.fill('#balance', '-3');
    await page.click('#balance-form button');
    expect(await state()).toMatchObject({ balance: 555 });
  });

  it('sets the webhook URL with the admin API’s validation, and sends a test event', async () => {
    await page.fill('#webhook-url', 'https://example.com/hook');
    await page.press('#webhook-url', 'Enter');
    await expect.poll(() => page.textContent('#webhook-note')).toContain('not on this machine');
    expect((await state()).webhookUrl).toBeNull();
    await page.fill('#webhook-url', listenerUrl);
    await page.press('#webhook-url', 'Enter');
    await expect.poll(async () => (await state()).webhookUrl).toBe(listenerUrl);
    await page.click('#webhook-test');
    await expect.poll(() => page.textContent('#webhook-note')).toMatch(/Test event: HTTP 200 in \d+ ms/);
    expect(appGot.some((body) => body.includes('"completed"'))).toBe(true);
  });

  it('shows deliveries failing and retrying, their attempts and masked headers, filters them, and replays one to delivered', async () => {
    appStatus = 500;
    const { id: taskId } = await world.createTask('domain_check_availability', ['x.com']);
    const retrying = page.locator('#delivery-list li[data-state="retrying"]');
    await expect.poll(() => retrying.count()).toBe(2);
    const item = retrying.filter({ hasText: 'processing' }).first();
    expect(await item.textContent()).toMatch(new RegExp(`task ${taskId}.*retrying.*next attempt`));
    await item.locator('summary').click();
    const attempts = item.locator('table.attempts tbody tr');
    expect(await attempts.first().textContent()).toMatch(/^1.*HTTP 502\d+ ms/);
    const headers = await item.locator('pre').first().textContent();
    expect(headers).toContain('X-Webhook-Signature: sk_s…');
    expect(headers).not.toContain(world.sandbox.apiKey);
    expect(await item.locator('pre').nth(1).textContent()).toContain(`"id": ${taskId}`);

    await page.selectOption('#delivery-filter', 'delivered');
    await expect.poll(() => page.locator('#delivery-list li[data-state="retrying"]').count()).toBe(0);
    await page.selectOption('#delivery-filter', 'retrying');
    await expect.poll(() => page.locator('#delivery-list li').count()).toBe(2);

    appStatus = 200;
    const forwardedBefore = appGot.length;
    await page.selectOption('#delivery-filter', '');
    const processing = page
      .locator('#delivery-list li', { hasText: `processing` })
      .filter({ hasText: `task ${taskId}` });
    await processing.locator('button.replay').click();
    await expect.poll(() => page.textContent('#deliveries-note')).toMatch(/replayed: HTTP 200 in \d+ ms \(delivered\)/);
    await expect.poll(() => processing.getAttribute('data-state')).toBe('delivered');
    // The replay is one more attempt of the same delivery, marked as a replay; the app got the event once.
    await processing.locator('summary').click();
    expect(await processing.locator('table.attempts tbody tr').last().textContent()).toMatch(/HTTP 200.*replay/);
    expect(appGot.length).toBe(forwardedBefore + 1);
    expect(
      listenerOut()
        .split('\n')
        .filter((l) => l.includes(`"id":${taskId}`) && l.includes('"processing"')),
    ).toHaveLength(1);
    const states = (await deliveries()).map((d) => d.state);
    expect(states).toContain('delivered');
  });

  it('clears the webhook URL', async () => {
    await page.click('#webhook-clear');
    await expect.poll(async () => (await state()).webhookUrl).toBeNull();
    // The page empties the field once its own request has been answered, which may be after the state reads null.
    await expect.poll(() => page.inputValue('#webhook-url')).toBe('');
  });

  it('lists, adds and clears faults; a fault the CLI consumed disappears live', async () => {
    await page.selectOption('#fault-method', 'GET');
    await page.fill('#fault-path', '/balance');
    await page.selectOption('#fault-kind', 'status');
    await page.fill('#fault-status', '503');
    await page.fill('#fault-count', '1');
    await page.click('#fault-form button[type=submit]');
    const rows = page.locator('#faults-table tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toBe('GET/api/v1/balancestatus1HTTP 503');
    // The CLI's balance meets the 503, retries, and succeeds: the fault is used up.
    expect((await world.inProcess(['balance'])).code).toBe(0);
    await expect.poll(() => rows.count()).toBe(0);
    expect(await page.isVisible('#faults-empty')).toBe(true);
    await page.selectOption('#fault-kind', 'reset-before');
    await page.fill('#fault-count', '3');
    await page.click('#fault-form button[type=submit]');
    await expect.poll(() => rows.count()).toBe(1);
    await page.click('#faults-clear');
    await expect.poll(() => rows.count()).toBe(0);
    expect((await world.admin<{ faults: unknown[] }>('GET', '/__sandbox/faults')).faults).toEqual([]);
  });

  it('regenerates the key by keyboard alone, after a confirmation; the CLI then gets 401 with the old key', async () => {
    const oldKey = world.sandbox.apiKey;
    await page.focus('#key-regenerate');
    await page.keyboard.press('Enter');
    expect(await page.isVisible('#confirm-regenerate')).toBe(true);
    await page.keyboard.press('Escape');
    expect(await page.isVisible('#confirm-regenerate')).toBe(false);
    expect((await state()).apiKey).toBe(oldKey);
    expect(await page.evaluate('document.activeElement.id')).toBe('key-regenerate');

    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.id')).toBe('confirm-yes');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await state()).apiKey).not.toBe(oldKey);
    const newKey = (await state()).apiKey;
    await expect.poll(() => page.inputValue('#api-key')).toBe(newKey);
    expect(await page.textContent('#key-note')).toContain('old key now gets 401');

    const withOld = await world.inProcess(['balance'], { env: { TASKCTL_API_KEY: oldKey } });
    expect(withOld.code).toBe(4);
    expect((await world.inProcess(['balance'], { env: { TASKCTL_API_KEY: newKey } })).code).toBe(0);
  });

  it('fits a phone’s width: no sideways scrolling of the page', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
  });
});

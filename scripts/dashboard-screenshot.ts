/**
 * `npx tsx scripts/dashboard-screenshot.ts [dir]`: a sandbox with a few tasks and deliveries, its dashboard shot by
 * headless chromium at 1280×800 (docs/dashboard.png, for docs/sandbox.md) and at phone width (390×844, four screens into
 * the temp directory, to look at).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../src/sandbox/index.js';
import { launchChromium } from '../test/browser/chromium.js';

const dir = process.argv[2] ?? 'docs';
let n = 0;
// A receiver that fails every third delivery, so the log shows a retry.
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(++n % 3 === 0 ? 500 : 200).end());
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
const sandbox = await startSandbox({ port: 0, itemMs: 400, rateLimit: 0, webhookUrl: hook, webhookTimeScale: 10 });
const post = (path: string, body: unknown) =>
  fetch(`${sandbox.origin}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': sandbox.apiKey },
    body: JSON.stringify(body),
  });
await post('/api/v1/tasks', { service: 'domain_check_availability', items: ['a.com', 'fail-b.com', 'c.com'] });
await post('/api/v1/tasks', { service: 'fanpage_extract_contact', items: ['acme', 'globex'] });
await post('/api/v1/tasks', { service: 'domain_whois_history', items: ['example.org', 'taskfail-x.org'] });
await new Promise((resolve) => setTimeout(resolve, 1500));
await post('/api/v1/tasks', {
  service: 'email_verify',
  items: Array.from({ length: 40 }, (_, i) => `u${i}@x.example`),
});
await post('/__sandbox/faults', { method: 'POST', path: '/tasks', kind: 'status', status: 503, count: 2 });
const browser = await launchChromium();
try {
  const page = await browser.context.newPage();
  await page.goto(sandbox.dashboard);
  await page.waitForSelector('#delivery-list li');
  await page.waitForTimeout(600);
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: join(dir, 'dashboard.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(tmpdir(), 'dashboard-phone.png') });
  // The rest of the phone page, a screen at a time (to look at; not for the docs).
  for (let i = 1; i < 4; i++) {
    await page.evaluate(`window.scrollTo(0, ${i * 800})`);
    await page.screenshot({ path: join(tmpdir(), `dashboard-phone-${i}.png`) });
  }
  console.log(`wrote ${join(dir, 'dashboard.png')}, and ${join(tmpdir(), 'dashboard-phone*.png')}`);
} finally {
  await browser.close();
  await sandbox.close();
  receiver.closeAllConnections();
  receiver.close();
}
